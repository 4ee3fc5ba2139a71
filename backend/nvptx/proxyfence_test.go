package nvptx_test

import (
	"strings"
	"testing"

	"github.com/tlego/tle/tle"
)

// stageSrc is a two-stage TMA ring whose consumer zeroes each stage with
// generic stores before it hands the stage back (the producer's next TMA
// load writes those bytes), with a fencing wgmma (its operand sq written
// generically first) placed by V: 0 after the zeroing at the loop body's
// top level (it covers the arrival), 1 in a branch (it does not: the
// arrival fences), 2 nowhere (the arrivals at the top of the loop and
// after it fence), 3 before the loop only (a trip's zeroing reaches the
// next trip's arrival: it fences); 4 neither zeroes nor runs a wgmma (the
// consumer only reads the stage: no fence).
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
                if V == 2 || V == 3 {
                    if i > 0 {
                        arrive(empty.slot((i - 1) % 2))
                    }
                }
                if V != 4 {
                    store(local_ptr(buf.slot(s), r[:, None], r[None, :]), zeros([64, 64], bf16))
                }
                store(out + i*4096 + r[:, None]*64 + r[None, :], load(local_ptr(buf.slot(s), r[:, None], r[None, :])).to(f32))
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
                if V < 2 || V == 4 {
                    arrive(empty.slot(s))
                }
            }
            if V == 2 || V == 3 {
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

// TestProxyFenceBeforeRelease: a role that writes a stage with generic
// stores and hands it back to another role's TMA load fences
// (fence.proxy.async) before its arrival, unless a fencing wgmma of the
// role lies after the writes on every path to it; a role that only reads
// the stage does not fence (stageSrc's V). Each case's fences are the
// wgmma's (one, when it runs one) plus one per arrival it does not cover.
func TestProxyFenceBeforeRelease(t *testing.T) {
	k := kernelOf(t, "stage.tle", stageSrc, "stage")
	for v, want := range map[string]int{"0": 1, "1": 2, "2": 2, "3": 3, "4": 0} {
		art, err := k.Build(tle.CompileOptions{Defines: map[string]string{"V": v}}, tle.GPUOptions{}, "ll")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(art.LLVMIR, "fence.proxy.async.shared::cta;"); n != want {
			t.Errorf("V %s: %d proxy fences, want %d", v, n, want)
		}
	}
}
