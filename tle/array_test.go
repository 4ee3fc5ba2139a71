package tle

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func parseKernel(t *testing.T, name, src string) *Kernel {
	t.Helper()
	prog, err := Parse(name+".tle", []byte(src))
	require.NoError(t, err)
	k, err := prog.Kernel(name)
	require.NoError(t, err)
	return k
}

// A []float32 is the f32 buffer itself on the interpreter: the sum lands
// in out's slice, and the launch copies none of the three arrays (it
// allocates far less than one of them).
func TestArrayInPlace(t *testing.T) {
	k := vectorAdd(t)
	const n = 1 << 20
	x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)*0.5, 1.25
	}
	args := map[string]any{"x": x, "y": &Array[float32]{Data: y}, "out": NewArray[float32](n), "n": n}
	args["out"].(*Array[float32]).Data = out
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "1024"}}
	require.NoError(t, k.Run(CPU(), [3]int{n / 1024, 1, 1}, opts, args)) // compiles
	clear(out)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.NoError(t, k.Run(CPU(), [3]int{n / 1024, 1, 1}, opts, args))
	runtime.ReadMemStats(&after)
	for i := range out {
		if out[i] != x[i]+1.25 {
			t.Fatalf("out[%d] = %v, want %v", i, out[i], x[i]+1.25)
		}
	}
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*n), "the run allocated %d bytes for arrays of %d", after.TotalAlloc-before.TotalAlloc, 4*n)
}

// bf16 bit patterns as []uint16, i32 as []int32: the kernel reads and
// writes them in their dtype, with the results a Tensor gives.
func TestArrayNarrowDTypes(t *testing.T) {
	k := parseKernel(t, "k", `
kernel k(x *bf16, idx *i32, out *bf16, cnt *i32, n i32) {
    offs := arange(0, 16)
    m := offs < n
    v := load(x + offs, mask: m, other: 0)
    i := load(idx + offs, mask: m, other: 0)
    store(out + offs, v * 3.0 + 1.0, mask: m)
    store(cnt + offs, i * -2 + 7, mask: m)
}
`)
	xs := []float64{0, 1, -2.5, 3.140625, 1e-3, 65504, -0.0, 7}
	idx := []int32{0, 1, -1, 1 << 30, -1 << 31, 5, 6, 7}
	bits := make([]uint16, len(xs))
	for i, x := range xs {
		bits[i] = uint16(math.Float32bits(float32(x)) >> 16) // these round to bf16 by truncation
	}
	out, cnt := make([]uint16, len(xs)), make([]int32, len(xs))
	require.NoError(t, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"x": bits, "idx": idx, "out": out, "cnt": cnt, "n": len(xs)}))

	idxF := make([]float64, len(idx))
	for i, v := range idx {
		idxF[i] = float64(v)
	}
	xt := &Tensor{Shape: []int{len(xs)}, Data: make([]float64, len(xs))}
	for i, b := range bits {
		xt.Data[i] = float64(math.Float32frombits(uint32(b) << 16))
	}
	outT, cntT := NewTensor(len(xs)), NewTensor(len(xs))
	require.NoError(t, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"x": xt, "idx": &Tensor{Shape: []int{len(idx)}, Data: idxF}, "out": outT, "cnt": cntT, "n": len(xs)}))
	for i := range xs {
		require.Equal(t, outT.Data[i], float64(math.Float32frombits(uint32(out[i])<<16)), "out[%d]", i)
		require.Equal(t, cntT.Data[i], float64(cnt[i]), "cnt[%d]", i)
	}
}

// A desc parameter takes an Array with a shape (row-major) or with
// strides, like StridedTensor.
func TestArrayDesc(t *testing.T) {
	k := parseKernel(t, "k", `
kernel k(x desc[f32, 1, 8, 16], out *f32) {
    buf := alloc([8, 16], f32)
    bar := barrier(count: 1)
    expect(bar, 8 * 16 * 4)
    copy(x, buf, program_id(0), 0, 0, barrier: bar)
    wait(bar, 0)
    r := arange(0, 8)
    c := arange(0, 16)
    store(out + program_id(0)*128 + r[:, None]*16 + c[None, :], load(buf))
}
`)
	data := make([]float32, 3*8*16)
	for i := range data {
		data[i] = float32(i%251) + 0.5
	}
	out := make([]float32, 3*128)
	run := func(x any) error {
		return k.Run(CPU(), [3]int{3, 1, 1}, CompileOptions{}, map[string]any{"x": x, "out": out})
	}
	require.NoError(t, run(&Array[float32]{Shape: []int{3, 8, 16}, Data: data}))
	for i := range data {
		require.Equal(t, data[i], out[i], "row-major, element %d", i)
	}
	// [3, 8, 16] stored as [8, 3, 16]
	require.NoError(t, run(&Array[float32]{Shape: []int{3, 8, 16}, Strides: []int{16, 48, 1}, Data: data}))
	for p := 0; p < 3; p++ {
		for r := 0; r < 8; r++ {
			for c := 0; c < 16; c++ {
				require.Equal(t, data[r*48+p*16+c], out[p*128+r*16+c], "(%d, %d, %d)", p, r, c)
			}
		}
	}
	require.ErrorContains(t, run(data), "argument x (desc[f32, 1, 8, 16]) needs a rank-3 tensor, got shape [384]")
	require.ErrorContains(t, run(&Array[float32]{Shape: []int{3, 8, 16}, Strides: []int{1, 48, 3}, Data: data}), "argument x (desc[f32, 1, 8, 16]): the innermost stride must be 1 for TMA")
	require.ErrorContains(t, run(&Array[float32]{Shape: []int{3, 8, 16}, Strides: []int{16, 48, 1}, Data: data[:300]}), "argument x (desc[f32, 1, 8, 16]): a tensor of shape [3 8 16] and strides [16 48 1] reaches element 383 of a buffer of 300")
}

// Every misuse of an Array or a slice is an error naming the argument,
// before anything is compiled (BLOCK is not bound), never a panic.
func TestArrayErrors(t *testing.T) {
	k := vectorAdd(t)
	x := make([]float32, 100)
	for _, c := range []struct {
		x    any
		want string
	}{
		{make([]float64, 100), "argument x (*f32): a []float64 cannot hold f32 elements; pass a []float32 (or a *tle.Tensor, whose float64s are converted)"},
		{make([]uint16, 100), "argument x (*f32): a []uint16 cannot hold f32 elements; pass a []float32"},
		{&Array[int32]{Data: make([]int32, 100)}, "argument x (*f32): a []int32 cannot hold f32 elements; pass a []float32"},
		{(*Array[float32])(nil), "argument x (*f32) is a nil *tle.Array[float32]"},
		{&Array[float32]{Shape: []int{10, 11}, Data: x}, "argument x (*f32): shape [10 11] holds 110 elements but the data has 100"},
		{&Array[float32]{Shape: []int{-1, 100}, Data: x}, "argument x (*f32): negative dimension -1 in shape [-1 100]"},
		{&Array[float32]{Shape: []int{100}, Strides: []int{1}, Data: x}, "argument x (*f32): strides [1] are for a desc parameter"},
		{[]string{"a"}, "argument x (*f32) needs a tensor, got []string (it takes a *tle.Tensor, or a *tle.Array or bare slice of type []float32)"},
	} {
		err := k.Run(CPU(), [3]int{2, 1, 1}, CompileOptions{}, map[string]any{"x": c.x, "y": x, "out": x, "n": 100})
		require.ErrorContains(t, err, c.want, "%T", c.x)
	}
	// a scalar parameter takes no slice
	err := k.Run(CPU(), [3]int{2, 1, 1}, CompileOptions{}, map[string]any{"x": x, "y": x, "out": x, "n": []int32{100}})
	require.ErrorContains(t, err, "argument n (i32)")

	// the bf16 and i1 element types
	kb := parseKernel(t, "k", `kernel k(x *bf16, m *i1) { store(x, load(x)) }`)
	err = kb.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"x": []float32{1}, "m": []bool{true}})
	require.ErrorContains(t, err, "argument x (*bf16): a []float32 cannot hold bf16 elements; pass a []uint16")
	err = kb.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"x": []uint16{1}, "m": []uint8{1}})
	require.ErrorContains(t, err, "argument m (*i1): a []uint8 cannot hold i1 elements; pass a []bool")
	require.NoError(t, kb.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"x": []uint16{0x3f80}, "m": []bool{true}}))

	require.PanicsWithValue(t, "tle.NewArray: negative dimension -2 in shape [-2]", func() { NewArray[float32](-2) })
	require.Equal(t, 6, NewArray[uint16](2, 3).Len())
}
