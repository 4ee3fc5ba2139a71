package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// A helper that misuses a pipe or a barrier is reported at the helper's
// line, naming the helper and the call it was inlined through (issue 33).
const misuseSrc = `func fill(pp pipe, i i32, v [32]f32) {
    s := pp.acquire(i)
    store(s.v, v)
    pp.commit(i + 1)
}

func wait_for(b barrier, phase i32) {
    wait(b, phase)
}

func twice(b barrier) {
    wait_for(b, 1)
}

kernel pipes(x *f32, out *f32) {
    pp := pipe(capacity: 2, v: [32]f32)
    cols := arange(0, 32)
    warp_specialize {
        role producer(warps: 1) {
            fill(pp, 0, load(x + cols))
        }
        role consumer(warps: 4) {
            s := pp.wait(0)
            store(out + cols, load(s.v))
            pp.release(0)
        }
    }
}

kernel bars(x *f32) {
    b := barrier(count: 1)
    arrive(b)
    wait(b, 0)
    twice(b)
}
`

func runMisuse(t *testing.T, kernel string, args map[string]any) error {
	t.Helper()
	prog, err := tle.Parse("misuse.tle", []byte(misuseSrc))
	require.NoError(t, err)
	k, err := prog.Kernel(kernel)
	require.NoError(t, err)
	return k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, args)
}

func TestHelperPipeMisuseNamesHelper(t *testing.T) {
	err := runMisuse(t, "pipes", map[string]any{"x": tle.NewTensor(32), "out": tle.NewTensor(32)})
	require.ErrorContains(t, err, `misuse.tle:4:5: error: pipe_commit(pp, 1): index 1 was not acquired`)
	require.ErrorContains(t, err, `(in func fill, called at misuse.tle:20:13)`)
}

// Through two helpers: the chain names both calls, innermost first.
func TestHelperBarrierMisuseNamesCallChain(t *testing.T) {
	err := runMisuse(t, "bars", map[string]any{"x": tle.NewTensor(32)})
	require.ErrorContains(t, err, `misuse.tle:8:5: error: deadlock`)
	require.ErrorContains(t, err, `waits at misuse.tle:8:5 (in func wait_for, called at misuse.tle:12:5, in func twice, called at misuse.tle:34:5) in wait(b, phase 1)`)
}
