package nvptx_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tlego/tle/tle"
)

const atomicSemPTXSrc = `
kernel atomic_sem_ptx(p *i32, f *f32, q *u64, x *i32) {
    offs := arange(0, 128)
    v := load(x + offs)
    a := atomic_add(p + offs, v)
    b := atomic_add(p + offs, v, sem: "relaxed")
    c := atomic_and(p + offs, v, sem: "acquire", scope: "cta")
    d := atomic_xchg(p + offs, v, sem: "release", scope: "sys")
    e := atomic_cas(p + offs, v, 1, sem: "relaxed", scope: "cta")
    g := atomic_cas(p + offs, v, 2)
    m := cast(atomic_max(f + offs, cast(v, f32), sem: "acquire"), i32)
    h := cast(atomic_or(q + offs, cast(v, u64), scope: "sys"), i32)
    store(x + offs, a + b + c + d + e + g + m + h)
    debug_barrier()
    store(x + offs, load(x + 127 - offs))
}
`

// TestPTXAtomicSem: an atomic's sem: and scope: become PTX's
// atom{.sem}{.scope}.global (Triton's default acq_rel at gpu scope; a
// relaxed gpu-scope atomic stays the plain atom.global it was before), the
// ordered ones clobber memory in the LLVM IR (so LLVM keeps the thread's
// other accesses on their side), and debug_barrier is bar.sync 0.
func TestPTXAtomicSem(t *testing.T) {
	prog, err := tle.Parse("atomic_sem.tle", []byte(atomicSemPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	bin := compileTLE(t, prog, "atomic_sem_ptx", nil)
	ptx := bin.PTX
	wantPTX(t, ptx, 1,
		`atom\.acq_rel\.gpu\.global\.add\.u32 %r\d+, \[%rd\d+\], %r\d+;`,
		`atom\.global\.add\.u32 %r\d+, \[%rd\d+\], %r\d+;`,
		`atom\.acquire\.cta\.global\.and\.b32 `,
		`atom\.release\.sys\.global\.exch\.b32 `,
		`atom\.relaxed\.cta\.global\.cas\.b32 %r\d+, \[%rd\d+\], %r\d+, %r\d+;`,
		`atom\.acq_rel\.gpu\.global\.cas\.b32 `,
		`atom\.acquire\.gpu\.global\.max\.s32 `,
		`atom\.acquire\.gpu\.global\.min\.u32 `,
		`atom\.acq_rel\.sys\.global\.or\.b64 %rd\d+, \[%rd\d+\], %rd\d+;`,
		`bar\.sync 0;`,
	)
	// the relaxed ones have no memory clobber; every ordered one has
	for _, line := range strings.Split(bin.LLVMIR, "\n") {
		if !strings.Contains(line, "atom.") {
			continue
		}
		ordered := strings.Contains(line, "atom.acq") || strings.Contains(line, "atom.release")
		if clob := strings.Contains(line, "~{memory}"); clob != ordered {
			t.Errorf("ordered %v but memory clobber %v: %s", ordered, clob, line)
		}
	}
}

// TestPTXLockLoop: Triton's layer-norm backward lock builds for the GPU:
// the spin loop's acq_rel cas, the release's acq_rel exch and the
// debug_barrier before it (TestLockLoopInterp runs it).
func TestPTXLockLoop(t *testing.T) {
	src, err := os.ReadFile("../../tests/testdata/lock_sum.tle")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := tle.Parse("lock_sum.tle", src)
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "lock_sum", map[string]string{"N": "256"}).PTX
	wantPTX(t, ptx, 1, `atom\.acq_rel\.gpu\.global\.cas\.b32 `, `bar\.sync 0;`)
	wantPTX(t, ptx, 2, `atom\.acq_rel\.gpu\.global\.exch\.b32 `)
}
