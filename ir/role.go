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

// SMRegisters is the register file of an SM (Hopper): 65536 32-bit
// registers, which a CTA's warpgroups share once setmaxnreg moves them.
const SMRegisters = 65536

// EntryRegisters is the per-thread register cap a kernel of ctaWarps
// warps starts with: SMRegisters over its threads in units of 8, at most
// 248 (ptxas gives a kernel using setmaxnreg the whole cap its maxntid and
// minctasm allow, and a thread has at most 255).
func EntryRegisters(ctaWarps int) int {
	return min(SMRegisters/(max(ctaWarps, 1)*32)/8*8, 248)
}

// RoleRegisters is the registers a CTA of ctaWarps warps holds once its
// warp_specialize's roles have applied their regs: (regs[k], 0 for none):
// each role's occupied warps (RoleOccupiedWarps) times 32 threads times
// its regs, or the entry cap for a role without, and the warps past the
// roles at the entry cap. A setmaxnreg.inc waits until the other
// warpgroups' .dec have freed what it takes: forever when this passes
// SMRegisters.
func RoleRegisters(occupied, regs []int, ctaWarps int) int {
	cap := EntryRegisters(ctaWarps)
	total, warps := 0, 0
	for k, w := range occupied {
		r := regs[k]
		if r == 0 {
			r = cap
		}
		total += 32 * w * r
		warps += w
	}
	return total + 32*max(ctaWarps-warps, 0)*cap
}

// RoleRegistersTooMany is the error the checker and the backend give when
// RoleRegisters passes SMRegisters (its arguments: the total, the entry
// cap, SMRegisters).
const RoleRegistersTooMany = "the roles' regs: need %d registers per CTA (each warpgroup's regs times 128 threads, %d for a role without regs:), more than the SM's %d: a setmaxnreg.inc would wait forever"
