package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// run compiles src's kernel k with defines and runs it on the interpreter.
func run(t *testing.T, src string, defines map[string]string, grid [3]int, args map[string]any) error {
	t.Helper()
	prog, err := tle.Parse("t.tle", []byte(src))
	require.NoError(t, err)
	k, err := prog.Kernel("k")
	require.NoError(t, err)
	return k.Run(tle.CPU(), grid, tle.CompileOptions{Defines: defines, VerifyEach: true}, args)
}

func TestEarlyReturn(t *testing.T) {
	out := tletest.Filled(-1, 4)
	err := run(t, `
kernel k(out *f32, n i32) {
    pid := program_id(0)
    if pid >= n {
        return
    }
    store(out + pid, 7.5)
}`, nil, [3]int{4, 1, 1}, map[string]any{"out": out, "n": 2})
	require.NoError(t, err)
	require.Equal(t, []float64{7.5, 7.5, -1, -1}, out.Data)
}

func TestMaskedCAS(t *testing.T) {
	out := tletest.Filled(3, 8)
	err := run(t, `
kernel k(out *i32) {
    offs := arange(0, 8)
    old := atomic_cas(out + offs, 3, 9, mask: offs < 5)
}`, nil, [3]int{1, 1, 1}, map[string]any{"out": out})
	require.NoError(t, err)
	require.Equal(t, []float64{9, 9, 9, 9, 9, 3, 3, 3}, out.Data)
}

func TestSmallIntSumWidens(t *testing.T) {
	x := tletest.Filled(100, 64) // 64 * 100 overflows i8 and i16 alike
	out := tle.NewTensor(1)
	err := run(t, `
kernel k(x *i8, out *i32) {
    store(out, sum(load(x + arange(0, 64)), axis: 0))
}`, nil, [3]int{1, 1, 1}, map[string]any{"x": x, "out": out})
	require.NoError(t, err)
	require.Equal(t, 6400.0, out.Data[0])
}

func TestIntegerDot(t *testing.T) {
	a, b := tletest.Filled(3, 16*16), tletest.Filled(-2, 16*16)
	out := tle.NewTensor(16 * 16)
	err := run(t, `
kernel k(a *i8, b *i8, out *i32) {
    r := arange(0, 16)
    offs := r[:, None]*16 + r[None, :]
    store(out + offs, dot(load(a + offs), load(b + offs)))
}`, nil, [3]int{1, 1, 1}, map[string]any{"a": a, "b": b, "out": out})
	require.NoError(t, err)
	require.Equal(t, -96.0, out.Data[17])
}

func TestConstCallsAndHelperConstParams(t *testing.T) {
	out := tle.NewTensor(64)
	err := run(t, `
const TILES = cdiv(100, 32)

func ramp(base f32, N const i32) f32 { return base + cast(arange(0, N), f32) }

kernel k(out *f32) {
    store(out + arange(0, 64), ramp(N: 64, base: TILES))
}`, nil, [3]int{1, 1, 1}, map[string]any{"out": out})
	require.NoError(t, err)
	require.Equal(t, 4.0, out.Data[0])
	require.Equal(t, 67.0, out.Data[63])
}

func TestLoopCarriedUntypedInit(t *testing.T) {
	x := tle.NewTensor(10)
	for i := range x.Data {
		x.Data[i] = 0.25 * float64(i+1)
	}
	out := tle.NewTensor(1)
	err := run(t, `
kernel k(x *f32, out *f32) {
    s := 0.0
    for i := range 10 {
        s = s + load(x + i)
    }
    store(out, s)
}`, nil, [3]int{1, 1, 1}, map[string]any{"x": x, "out": out})
	require.NoError(t, err)
	require.Equal(t, 13.75, out.Data[0])
}

func TestIfResults(t *testing.T) {
	out := tle.NewTensor(4)
	err := run(t, `
kernel k(out *f32) {
    pid := program_id(0)
    v := 1.5
    if pid%2 == 0 {
        v = 2.5
    } else if pid == 3 {
        v = v * 4
    }
    store(out + pid, v)
}`, nil, [3]int{4, 1, 1}, map[string]any{"out": out})
	require.NoError(t, err)
	require.Equal(t, []float64{2.5, 1.5, 2.5, 6}, out.Data)
}

func TestBarrierArray(t *testing.T) {
	out := tle.NewTensor(64)
	err := run(t, `
kernel k(out *f32) {
    bars := barrier(count: 1, slots: 2)
    buf := alloc([2, 64], f32)
    cols := arange(0, 64)
    warp_specialize {
        role producer(warps: 1) {
            store(local_ptr(buf.slot(1), cols), full([64], 2.5, f32))
            arrive(bars.slot(1))
        }
        role consumer(warps: 4) {
            wait(bars.slot(1), 0)
            store(out + cols, load(local_ptr(buf.slot(1), cols)))
        }
    }
}`, nil, [3]int{1, 1, 1}, map[string]any{"out": out})
	require.NoError(t, err)
	require.Equal(t, 2.5, out.Data[63])
}

func TestHelperReturnMustBeLast(t *testing.T) {
	prog, err := tle.Parse("t.tle", []byte(`
func pick(c i1, a f32, b f32) f32 {
    if c {
        return a
    }
    return b
}

kernel k(out *f32) {
    store(out, pick(program_id(0) == 0, 1.0, 2.0))
}`))
	require.NoError(t, err)
	k, err := prog.Kernel("k")
	require.NoError(t, err)
	_, err = k.IR(tle.CompileOptions{})
	require.ErrorContains(t, err, "t.tle:4:9: error: a helper returns only at its end (its last statement, or the branches of a final if/else): more of the helper follows this return")
}
