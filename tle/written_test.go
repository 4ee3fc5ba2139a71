package tle

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Writes names exactly the buffers a tutorial kernel stores into.
func TestWrites(t *testing.T) {
	for _, c := range []struct {
		kernel string
		defs   map[string]string
		want   []string
	}{
		{"vector_add", map[string]string{"BLOCK": "64"}, []string{"out"}},
		{"softmax", map[string]string{"BLOCK": "128"}, []string{"out"}},
		{"matmul", map[string]string{"BM": "32", "BN": "32", "BK": "32"}, []string{"c"}},
		{"tma_roundtrip", map[string]string{"BM": "64", "BN": "128"}, []string{"y"}}, // a TMA store through a desc
		{"matmul_tma", map[string]string{"BM": "128", "BN": "256", "BK": "64", "S": "3", "LAG": "1"}, []string{"c"}},
		{"compact", map[string]string{"N": "256"}, []string{"list", "count"}}, // an atomic on count
		{"pipe_scale", map[string]string{"ROWS": "8", "ROW": "256", "CAP": "2"}, []string{"out"}},
	} {
		k := tutorialKernel(t, c.kernel)
		got, err := k.Writes(CompileOptions{Defines: c.defs})
		require.NoError(t, err, c.kernel)
		require.Equal(t, c.want, got, c.kernel)
	}
	// inline assembly may name any parameter in its template: every
	// buffer of a kernel with asm may be written
	prog, err := LoadFile("../kernels/tutorials/pdl.tle")
	require.NoError(t, err)
	k, err := prog.Kernel("pdl_producer_timed")
	require.NoError(t, err)
	got, err := k.Writes(CompileOptions{Defines: map[string]string{"BLOCK": "256"}})
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y", "times"}, got)
	_, err = (*Kernel)(nil).Writes(CompileOptions{})
	require.ErrorContains(t, err, "nil *tle.Kernel")
}

// Concurrent Runs may share a tensor the kernel only reads: Run copies
// back only the buffers the kernel may write, so `go test -race` finds no
// race (every Run copied every pointer argument back, inputs included).
func TestConcurrentRunsShareInputs(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	const n = 1000
	x, y := NewTensor(n), NewTensor(n)
	for i := range x.Data {
		x.Data[i], y.Data[i] = float64(i), float64(2*i+1)
	}
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "256"}}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	outs := make([]*Tensor, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[g] = NewTensor(n)
			errs[g] = k.Run(CPU(), [3]int{(n + 255) / 256, 1, 1}, opts, map[string]any{"x": x, "y": y, "out": outs[g], "n": n})
		}()
	}
	wg.Wait()
	for g := range 16 {
		require.NoError(t, errs[g], fmt.Sprint("goroutine ", g))
		for i := range n {
			require.Equal(t, float64(3*i+1), outs[g].Data[i])
		}
	}
}

// WithProgress sees the launch start at 0 and every program finish.
func TestWithProgress(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	x := NewTensor(1000)
	var mu sync.Mutex
	var seen []int
	ctx := WithProgress(context.Background(), func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, 4, total)
		seen = append(seen, done)
	})
	require.NoError(t, k.RunContext(ctx, CPU(), [3]int{4, 1, 1}, CompileOptions{Defines: map[string]string{"BLOCK": "256"}},
		map[string]any{"x": x, "y": x, "out": NewTensor(1000), "n": 1000}))
	sort.Ints(seen)
	require.Equal(t, []int{0, 1, 2, 3, 4}, seen)
}

// The interpreter's whole-block loads and stores (every lane on, the
// lanes consecutive) and its lane-by-lane ones agree, and a block past a
// buffer's end is still an out-of-bounds error naming its first bad lane.
func TestContiguousAccessesMatchLaneByLane(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "256"}}
	for _, n := range []int{1024, 1000} { // whole blocks; a masked tail block
		x, y, out := NewTensor(n), NewTensor(n), NewTensor(n)
		for i := range n {
			x.Data[i], y.Data[i] = float64(i)*0.5, float64(3*i)
		}
		require.NoError(t, k.Run(CPU(), [3]int{(n + 255) / 256, 1, 1}, opts, map[string]any{"x": x, "y": y, "out": out, "n": n}))
		for i := range n {
			require.Equal(t, float64(float32(float64(i)*0.5+float64(3*i))), out.Data[i], "element %d of %d", i, n)
		}
	}
	// n larger than the buffers: the last block's lanes run past them
	small := NewTensor(1000)
	err := k.Run(CPU(), [3]int{4, 1, 1}, opts, map[string]any{"x": small, "y": small, "out": NewTensor(1000), "n": 1024})
	require.ErrorContains(t, err, "out-of-bounds load")
	require.ErrorContains(t, err, "index 1000 is outside [0, 1000) (lane 232 of 256)")
}

// A flag a kernel only signals is written (signal sets or adds on it), so
// RunDevices copies it back: a later launch on the same flags sees their
// counts.
func TestWritesSignalledFlags(t *testing.T) {
	src := `kernel count(flags *i32, x *f32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    for r := range WORLD {
        signal(flags, r, mesh, 1, op: "add")
    }
    signal_wait(flags, WORLD)
}
`
	p, err := Parse("count.tle", []byte(src))
	require.NoError(t, err)
	k, err := p.Kernel("count")
	require.NoError(t, err)
	opts := CompileOptions{Defines: map[string]string{"WORLD": "2"}}
	got, err := k.Writes(opts)
	require.NoError(t, err)
	require.Equal(t, []string{"flags"}, got)
	flags := []*Tensor{NewTensor(1), NewTensor(1)}
	for launch := 1; launch <= 2; launch++ {
		args := []map[string]any{{"flags": flags[0], "x": NewTensor(1)}, {"flags": flags[1], "x": NewTensor(1)}}
		require.NoError(t, k.RunDevices(context.Background(), SimDevices(2), [3]int{1, 1, 1}, opts, args, "flags"))
		require.Equal(t, []float64{float64(2 * launch)}, flags[0].Data, "launch %d", launch)
		require.Equal(t, []float64{float64(2 * launch)}, flags[1].Data, "launch %d", launch)
	}
}
