package ir

import "fmt"

// RoleCopy returns the copy index of a role op and the number of copies of
// its role: a role written with `copies: n` (n > 1) is lowered to n role ops
// of the same name with the attributes copy (0 to n-1) and copies (n), each
// its own role; a role without copies is copy 0 of 1 and has neither
// attribute.
func RoleCopy(role *Op) (copy, copies int) {
	n := role.Attrs.Int("copies", 1)
	if n <= 1 {
		return 0, 1
	}
	return int(role.Attrs.Int("copy", 0)), int(n)
}

// RoleLabel names a role op in messages: its name quoted, and for a copy
// of a role with copies its index: `"load"`, `"consumer" copy 1`.
func RoleLabel(role *Op) string {
	name := fmt.Sprintf("%q", role.Attrs.String("name"))
	if k, n := RoleCopy(role); n > 1 {
		return fmt.Sprintf("%s copy %d", name, k)
	}
	return name
}
