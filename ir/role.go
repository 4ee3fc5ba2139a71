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

// RoleActiveWarps is the number of warps a warp role's body runs on when
// its warps: asks for n: n rounded up to a power of two (a tile's layout
// spreads it over a power of two of warps).
func RoleActiveWarps(n int) int {
	p := 1
	for p < n && p < 1<<30 { // the checker allows 32; the bound keeps p from overflowing
		p *= 2
	}
	return p
}

// RoleOccupiedWarps is the number of warps each of a warp_specialize's
// roles occupies, in order, from their warps: (warps) and whether any of
// them gives regs: (setmaxnreg): its RoleActiveWarps rounded up to a
// warpgroup (4 warps: wgmma and setmaxnreg act per warpgroup, so the next
// role starts on a warpgroup boundary), except the last role when none
// gives regs, which keeps its active warps (a one-warp producer after a
// consumer warpgroup then costs the CTA one warp, not four). The checker
// and the backend both count with it.
func RoleOccupiedWarps(warps []int, regs bool) []int {
	out := make([]int, len(warps))
	for k, n := range warps {
		a := RoleActiveWarps(n)
		out[k] = (a + 3) / 4 * 4
		if k == len(warps)-1 && !regs {
			out[k] = a
		}
	}
	return out
}
