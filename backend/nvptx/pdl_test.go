package nvptx_test

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/tle"
)

const pdlSrc = `kernel consumer(y *f32, out *f32) {
    grid_dependency_wait()
    v := load(y + program_id(0))
    launch_dependents()
    store(out + program_id(0), v + 1)
}

kernel roles(y *f32, out *f32, n i32) {
    warp_specialize {
        role loader(warps: 1) {
            grid_dependency_wait()
        }
        role rest(warps: 4) {
            if n > 0 {
                launch_dependents()
            }
        }
    }
    store(out, load(y))
}
`

func pdlProgram(t *testing.T) *tle.Program {
	t.Helper()
	prog, err := tle.Load(fstest.MapFS{"pdl.tle": {Data: []byte(pdlSrc)}}, "pdl.tle")
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

var (
	waitLine    = regexp.MustCompile(`(?m)^\s*griddepcontrol\.wait;$`)
	triggerLine = regexp.MustCompile(`(?m)^\s*griddepcontrol\.launch_dependents;$`)
)

// TestPTXGridDependencyControl: the exact griddepcontrol lines in llc-19's
// PTX, the wait before the load of the previous kernel's output and the
// trigger after it, in program order; in warp roles (per-thread
// instructions, no role barrier needed) too. The binary records the wait.
func TestPTXGridDependencyControl(t *testing.T) {
	prog := pdlProgram(t)
	b := compileTLE(t, prog, "consumer", nil)
	ptx := b.PTX
	w, tr := waitLine.FindAllStringIndex(ptx, -1), triggerLine.FindAllStringIndex(ptx, -1)
	if len(w) != 1 || len(tr) != 1 {
		t.Fatalf("%d griddepcontrol.wait; and %d griddepcontrol.launch_dependents; lines, want 1 and 1:\n%s", len(w), len(tr), ptx)
	}
	ld := regexp.MustCompile(`ld\.global`).FindStringIndex(ptx)
	st := regexp.MustCompile(`st\.global`).FindStringIndex(ptx)
	if ld == nil || st == nil || !(w[0][0] < ld[0] && ld[0] < tr[0][0] && tr[0][0] < st[0]) {
		t.Errorf("order: wait %v, load %v, trigger %v, store %v; want wait < load < trigger < store", w, ld, tr, st)
	}
	if !b.GridDependencyWait {
		t.Error("Binary.GridDependencyWait not set")
	}
	if !strings.Contains(ptx, ".target sm_90a") {
		t.Errorf("PTX target is not sm_90a")
	}

	r := compileTLE(t, prog, "roles", nil)
	if n, m := len(waitLine.FindAllString(r.PTX, -1)), len(triggerLine.FindAllString(r.PTX, -1)); n != 1 || m != 1 {
		t.Errorf("roles: %d wait and %d launch_dependents lines, want 1 and 1", n, m)
	}
	if !r.GridDependencyWait {
		t.Error("roles: Binary.GridDependencyWait not set")
	}
}

// Before sm_90 the builtins are user errors at their position; sm_90 (not
// only sm_90a) has them.
func TestGridDependencyControlNeedsSM90(t *testing.T) {
	prog := pdlProgram(t)
	k, err := prog.Kernel("consumer")
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_80", "sm_86", "sm_89"} {
		_, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: arch}, "ll")
		want := "pdl.tle:2:5: error: grid_dependency_wait: needs sm_90 or newer (griddepcontrol.wait); the target is " + arch
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", arch, err, want)
		}
	}
	art, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: "sm_90"}, "ll")
	if err != nil {
		t.Fatalf("sm_90: %v", err)
	}
	if !strings.Contains(art.LLVMIR, "griddepcontrol.wait;") || !strings.Contains(art.LLVMIR, "griddepcontrol.launch_dependents;") {
		t.Errorf("sm_90: no griddepcontrol in the LLVM IR")
	}
}

// SupportsPDL says which targets build the PDL builtins.
func TestSupportsPDL(t *testing.T) {
	k, err := pdlProgram(t).Kernel("consumer")
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range append([]string{""}, nvptx.Targets...) {
		_, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: arch}, "ll")
		if got := nvptx.SupportsPDL(arch); got != (err == nil) {
			t.Errorf("SupportsPDL(%q) = %v, but the build's error is %v", arch, got, err)
		}
	}
}
