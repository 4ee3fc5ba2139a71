package tests

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// ptrTableSrc reads and writes buffers through a table of their
// addresses (Triton's pointer tables): the address converts to a pointer
// (.to(*f32) and cast), back to an integer, and integer arithmetic in
// bytes moves it by elements.
const ptrTableSrc = `
kernel tab(t *i64, out *f32, second *f32, addrs *i64, n *i32, B const i32) {
    g := program_id(0)
    a := load(t + g)
    p := a.to(*f32)
    offs := arange(0, B)
    m := offs < load(n + g)
    x := load(p + offs, mask: m, other: 0.0)
    store(out + g * B + offs, x, mask: m)
    store(p + offs, x * 2.0 + 1.0, mask: m)
    store(addrs + g, p.to(i64))
    q := cast(a + 4, *f32)
    store(second + g, load(q))
}
kernel forged(t *i64, x i64, out *f32, mode i32) {
    a := load(t)
    if mode == 0 {
        store(out, load(x.to(*f32)))
    }
    if mode == 1 {
        store(out, load((a + 2).to(*f32)))
    }
    if mode == 2 {
        store(out, load(a.to(*f16)).to(f32))
    }
}
`

func checkPointerTable(t *testing.T, dev tle.Device, interp bool) {
	prog, err := tle.Parse("ptrtable.tle", []byte(ptrTableSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 3))
	const B = 64
	sizes := []int32{37, 64, 5, 50}
	G := len(sizes)
	entries := make([]any, G)
	want := make([][]float32, G)
	var tensorEntry *tle.Tensor
	for g, n := range sizes {
		d := make([]float32, n)
		for i := range d {
			d[i] = r.Float32()*4 - 2
		}
		want[g] = append([]float32(nil), d...)
		entries[g] = d
		if g == 2 { // a Tensor entry, converted and copied back
			tensorEntry = &tle.Tensor{Shape: []int{int(n)}, Data: make([]float64, n)}
			for i, v := range d {
				tensorEntry.Data[i] = float64(v)
			}
			entries[g] = tensorEntry
		}
	}
	out, second, addrs := make([]float32, G*B), make([]float32, G), make([]int64, G)
	k, err := prog.Kernel("tab")
	require.NoError(t, err)
	require.NoError(t, k.Run(dev, [3]int{G, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"B": "64"}},
		map[string]any{"t": &tle.PointerTable{DType: "f32", Entries: entries}, "out": out, "second": second, "addrs": addrs, "n": sizes}))
	for g, n := range sizes {
		for i := 0; i < int(n); i++ {
			require.Equal(t, want[g][i], out[g*B+i], "group %d element %d read through the table", g, i)
			var got float32
			if g == 2 {
				got = float32(tensorEntry.Data[i])
			} else {
				got = entries[g].([]float32)[i]
			}
			require.Equal(t, want[g][i]*2+1, got, "group %d element %d written through the table", g, i)
		}
		require.Equal(t, want[g][1]*2+1, second[g], "group %d: the address plus 4 bytes is element 1 (as written)", g)
		require.NotZero(t, addrs[g])
	}
	for g := range addrs {
		for h := range g {
			require.NotEqual(t, addrs[g], addrs[h], "entries %d and %d have one address", g, h)
		}
	}

	if !interp {
		return
	}
	// the interpreter refuses an integer it did not hand out, naming the
	// cast's position
	f, err := prog.Kernel("forged")
	require.NoError(t, err)
	for mode, msg := range []string{
		"ptrtable.tle:18:25: error: inttoptr: 0x3039 (element 0) is no address this launch handed out",
		"ptrtable.tle:21:25: error: inttoptr: 0x10000000002 (element 0) is byte 2 of t[0], not a multiple of 4 (the size of f32)",
		"ptrtable.tle:24:25: error: inttoptr: 0x10000000000 (element 0) is an address into t[0], a f32 buffer, used as *f16",
	} {
		buf := []float32{1.5, 2.5}
		err := f.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4},
			map[string]any{"t": &tle.PointerTable{DType: "f32", Entries: []any{buf}}, "x": int64(12345), "out": make([]float32, 1), "mode": int32(mode)})
		require.Error(t, err, "mode %d", mode)
		require.True(t, strings.Contains(err.Error(), msg), "mode %d: %v", mode, err)
	}
}

// TestPointerTableArgs: what Run takes as a PointerTable, with messages
// naming the argument or the entry.
func TestPointerTableArgs(t *testing.T) {
	t.Parallel()
	prog, err := tle.Parse("ptrtable.tle", []byte(ptrTableSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("tab")
	require.NoError(t, err)
	args := func(tab any, out any) map[string]any {
		return map[string]any{"t": tab, "out": out, "second": make([]float32, 1), "addrs": make([]int64, 1), "n": []int32{4}}
	}
	opts := tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"B": "64"}}
	for _, c := range []struct {
		args map[string]any
		msg  string
	}{
		{args(&tle.PointerTable{DType: "f99", Entries: []any{make([]float32, 4)}}, make([]float32, 64)), `argument t (*i64): PointerTable.DType "f99" is no element dtype`},
		{args(&tle.PointerTable{DType: "f32", Entries: []any{make([]int32, 4)}}, make([]float32, 64)), "argument t[0] (*f32): a []int32 cannot hold f32 elements"},
		{args(&tle.PointerTable{DType: "f32", Entries: []any{"x"}}, make([]float32, 64)), "pointer table entry t[0] (*f32) needs a tensor, got string"},
		{args(&tle.PointerTable{DType: "f32", Entries: []any{make([]float32, 4)}}, &tle.PointerTable{DType: "f32"}), "argument out (*f32): a PointerTable is an *i64 or *u64 argument"},
		{args((*tle.PointerTable)(nil), make([]float32, 64)), "argument t (*i64) is a nil *tle.PointerTable"},
		{args(tle.PointerTable{DType: "f32", Entries: []any{make([]float32, 3), "y"}}, make([]float32, 64)), "pointer table entry t[1] (*f32) needs a tensor, got string"},
	} {
		err := k.Run(tle.CPU(), [3]int{1, 1, 1}, opts, c.args)
		require.Error(t, err)
		require.Contains(t, err.Error(), c.msg)
	}
}

// TestPointerTableInterp: a PointerTable's entries are read and written
// through their addresses on the interpreter, which refuses forged ones.
func TestPointerTableInterp(t *testing.T) {
	t.Parallel()
	checkPointerTable(t, tle.CPU(), true)
}

// TestGPUPointerTable runs the same reads and writes on the GPU.
func TestGPUPointerTable(t *testing.T) {
	g := tletest.GPU(t)
	checkPointerTable(t, g, false)
}
