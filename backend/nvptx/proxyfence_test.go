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

// stageSrc is a consumer that zeroes a TMA-loaded stage and hands it back,
// with a fencing wgmma (its operand sq written generically first) placed
// by V: 0 after the zeroing at the loop body's top level (it covers the
// arrival), 1 in a branch (it does not: the arrival fences), 2 nowhere
// (the arrivals at the top of the loop and after it fence), 3 before the
// loop only (a trip's zeroing reaches the next trip's arrival: it fences).
const stageSrc = `kernel stage(x desc[bf16, 64, 64], y *bf16, out *f32, n i32, c i32, V const i32) {
    sq := alloc([64, 64], bf16)
    buf := alloc([2, 64, 64], bf16)
    full := barrier(count: 1, slots: 2)
    empty := barrier(count: 1, slots: 2)
    warp_specialize {
        role consumer(warps: 4) {
            r := arange(0, 64)
            acc := zeros([64, 64], f32)
            store(sq, load(y + r[:, None]*64 + r[None, :]))
            if V == 3 {
                acc = wgmma(sq, sq, acc)
                wgmma_wait(0)
            }
            for i := range n {
                s := i % 2
                wait(full.slot(s), (i / 2) % 2)
                if V >= 2 {
                    if i > 0 {
                        arrive(empty.slot((i - 1) % 2))
                    }
                }
                store(local_ptr(buf.slot(s), r[:, None], r[None, :]), zeros([64, 64], bf16))
                if V == 0 {
                    acc = wgmma(sq, sq, acc)
                    wgmma_wait(0)
                }
                if V == 1 {
                    if c > 0 {
                        acc = wgmma(sq, sq, acc)
                        wgmma_wait(0)
                    }
                }
                if V < 2 {
                    arrive(empty.slot(s))
                }
            }
            if V >= 2 {
                arrive(empty.slot((n - 1) % 2))
            }
            store(out + r[:, None]*64 + r[None, :], acc)
        }
        role producer(warps: 1) {
            for i := range n {
                s := i % 2
                if i >= 2 {
                    wait(empty.slot(s), (i/2 + 1) % 2)
                }
                expect(full.slot(s), 8192)
                copy(x, buf.slot(s), i * 64, 0, barrier: full.slot(s))
            }
        }
    }
}
`

// TestProxyFenceCoveredByWgmma: an arrival needs no fence of its own only
// where a fencing wgmma of its role lies after the writes on every path
// to it (stageSrc's V); each case's fences are the wgmma's (one, when
// there is one) plus one per arrival that the wgmma does not cover.
func TestProxyFenceCoveredByWgmma(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"stage.tle": {Data: []byte(stageSrc)}}, "stage.tle")
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("stage")
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]int{"0": 1, "1": 2, "2": 2, "3": 3} {
		art, err := k.Build(tle.CompileOptions{Defines: map[string]string{"V": v}}, tle.GPUOptions{}, "ll")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(art.LLVMIR, "fence.proxy.async.shared::cta;"); n != want {
			t.Errorf("V %s: %d proxy fences, want %d", v, n, want)
		}
	}
}
