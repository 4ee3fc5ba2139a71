package nvptx_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tlego/tle/tle"
)

// ringSrc is a two-stage TMA ring: the producer loads a stage on full,
// the consumer reads it and hands it back on empty. In ring_zero the
// consumer also writes the stage (generic stores) before handing it back,
// so the producer's next TMA load writes bytes the generic proxy wrote.
const ringSrc = `kernel ring(x desc[f32, 16, 16], out *f32) {
    buf := alloc([2, 16, 16], f32)
    full := barrier(count: 1, slots: 2)
    empty := barrier(count: 1, slots: 2)
    warp_specialize {
        role consumer(warps: 4) {
            r := arange(0, 16)
            for i := range 4 {
                s := i % 2
                wait(full.slot(s), (i / 2) % 2)
                v := load(local_ptr(buf.slot(s), r[:, None], r[None, :]))
                store(out + i*256 + r[:, None]*16 + r[None, :], v)
                if ZERO == 1 {
                    store(local_ptr(buf.slot(s), r[:, None], r[None, :]), zeros([16, 16], f32))
                }
                arrive(empty.slot(s))
            }
        }
        role producer(warps: 1) {
            for i := range 4 {
                s := i % 2
                if i >= 2 {
                    wait(empty.slot(s), (i/2 + 1) % 2)
                }
                expect(full.slot(s), 1024)
                copy(x, buf.slot(s), i * 16, 0, barrier: full.slot(s))
            }
        }
    }
}
`

// TestProxyFenceBeforeRelease: a role that writes a stage with generic
// stores and hands it back to a TMA load in another role fences
// (fence.proxy.async) before its arrival, as a stage the async proxy will
// write next must not see the generic writes land after it; a role that
// only reads the stage does not fence.
func TestProxyFenceBeforeRelease(t *testing.T) {
	src := strings.Replace(ringSrc, "kernel ring(x desc[f32, 16, 16], out *f32)", "kernel ring(x desc[f32, 16, 16], out *f32, ZERO const i32)", 1)
	prog, err := tle.Load(fstest.MapFS{"ring.tle": {Data: []byte(src)}}, "ring.tle")
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("ring")
	if err != nil {
		t.Fatal(err)
	}
	for zero, want := range map[string]int{"0": 0, "1": 1} {
		art, err := k.Build(tle.CompileOptions{Defines: map[string]string{"ZERO": zero}}, tle.GPUOptions{}, "ll")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(art.LLVMIR, "fence.proxy.async.shared::cta;"); n != want {
			t.Errorf("ZERO %s: %d proxy fences, want %d", zero, n, want)
		}
	}
}
