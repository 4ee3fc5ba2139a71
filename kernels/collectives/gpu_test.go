package collectives

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/cuda/cudatest"
	"github.com/tlego/tle/tle"
)

// A mesh of ranks on one GPU: each rank's symmetric heap is its own
// allocation of one device, every rank's kernel is launched on its own
// non-blocking stream with the device-mesh ABI's hidden parameters (its
// rank, the table of the heaps' bases, its sync area), so the ranks run
// concurrently and meet through the same remote accesses, counters and
// flags as on several GPUs (there the bases are peer mappings). Skipped
// without a GPU (cudatest).

// oneGPUMesh is world ranks' heaps on one GPU.
type oneGPUMesh struct {
	ctx   *cuda.Context
	world int
	heaps []cuda.DevicePtr
	bases cuda.DevicePtr // world u64 on the device
	size  int
}

func newOneGPUMesh(t *testing.T, ctx *cuda.Context, world, heapBytes int) *oneGPUMesh {
	m := &oneGPUMesh{ctx: ctx, world: world, size: heapBytes}
	table := make([]byte, 8*world)
	for r := range world {
		p, err := ctx.Alloc(heapBytes) // 256-byte aligned
		require.NoError(t, err)
		t.Cleanup(func() { ctx.Free(p) })
		require.NoError(t, ctx.MemsetD8(p, 0, heapBytes))
		m.heaps = append(m.heaps, p)
		binary.LittleEndian.PutUint64(table[8*r:], uint64(p))
	}
	var err error
	m.bases, err = ctx.Alloc(len(table))
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Free(m.bases) })
	require.NoError(t, ctx.CopyHtoD(m.bases, table))
	return m
}

// launch runs b on every rank, args(rank) its own arguments, the sync
// area at syncOff in each heap, and waits (a deadlock fails the test).
func (m *oneGPUMesh) launch(t *testing.T, b *tle.Binary, grid [3]int, syncOff int, args func(r int) []any) {
	t.Helper()
	require.Equal(t, []string{"rank", "heap_bases", "sync"}, b.Hidden)
	programs := grid[0] * grid[1] * grid[2]
	require.LessOrEqual(t, syncOff+nvptx.DeviceSyncBytes(m.world, programs), m.size)
	mod, err := m.ctx.LoadPTX([]byte(b.PTX))
	require.NoError(t, err)
	fn, err := mod.Function(b.Kernel)
	require.NoError(t, err)
	if b.SmemBytes > 48*1024 { // as tle's loader: past 48 KB a launch needs the opt-in
		require.NoError(t, fn.SetMaxDynamicSharedMemory(b.SmemBytes))
	}
	for r := range m.world {
		s, err := m.ctx.NewStream(cuda.StreamNonBlocking)
		require.NoError(t, err)
		defer s.Destroy()
		cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: uint32(grid[0]), Y: uint32(grid[1]), Z: uint32(grid[2])}, Block: cuda.Dim3{X: uint32(32 * b.NumWarps), Y: 1, Z: 1},
			SharedMem: b.SmemBytes, Stream: s}
		a := append(args(r), int32(r), m.bases, m.heaps[r]+cuda.DevicePtr(syncOff))
		require.NoError(t, fn.Launch(cfg, a...))
	}
	done := make(chan error, 1)
	go func() { done <- m.ctx.Synchronize() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("the ranks did not finish in 60 s: a deadlock in the device barrier or a signal_wait")
	}
}

func f32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	xs := make([]float32, len(b)/4)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return xs
}

// TestGPUAllReduceOneGPUMesh: all_reduce_oneshot and _twoshot in f32 on 4
// ranks of one GPU, launched three times without resetting the sync area
// (the counters carry over), against the exact sums.
func TestGPUAllReduceOneGPUMesh(t *testing.T) {
	ctx := cudatest.Require(t)
	const world, n, blk = 4, 4096, 256
	for _, name := range []string{"all_reduce_oneshot", "all_reduce_twoshot"} {
		k := kernel(t, "all_reduce.tle", name)
		b, err := k.Compile(tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BLOCK": fmt.Sprint(blk), "T": "f32"}}, tle.GPUOptions{})
		require.NoError(t, err, name)
		programs := n / blk
		if name == "all_reduce_twoshot" {
			programs = n / world / blk
		}
		// heap: x, scratch, sync
		xOff, scratchOff, syncOff := 0, 4*n, 8*n
		m := newOneGPUMesh(t, ctx, world, syncOff+nvptx.DeviceSyncBytes(world, programs))
		want := make([]float32, n)
		for r := range world {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32((r+1)*(i%7+1)) / 8
				want[i] += x[i]
			}
			require.NoError(t, ctx.CopyHtoD(m.heaps[r]+cuda.DevicePtr(xOff), f32Bytes(x)))
		}
		outs := make([]cuda.DevicePtr, world)
		for r := range outs {
			p, err := ctx.Alloc(4 * n)
			require.NoError(t, err)
			defer ctx.Free(p)
			outs[r] = p
		}
		for round := range 3 {
			for r := range outs {
				require.NoError(t, ctx.MemsetD8(outs[r], 0, 4*n))
			}
			m.launch(t, b, [3]int{programs, 1, 1}, syncOff, func(r int) []any {
				x := m.heaps[r] + cuda.DevicePtr(xOff)
				if name == "all_reduce_twoshot" {
					return []any{x, m.heaps[r] + cuda.DevicePtr(scratchOff), outs[r], int32(n)}
				}
				return []any{x, outs[r], int32(n)}
			})
			for r := range outs {
				got := make([]byte, 4*n)
				require.NoError(t, ctx.CopyDtoH(got, outs[r]))
				require.Equal(t, want, bytesF32(got), "%s round %d rank %d", name, round, r)
			}
		}
	}
}

// TestGPUAllGatherPushOneGPUMesh: all_gather_push in f32 on 4 ranks of one
// GPU: stores into the peers' recv, add-signals on their flags, a wait for
// WORLD of them.
func TestGPUAllGatherPushOneGPUMesh(t *testing.T) {
	ctx := cudatest.Require(t)
	const world, n, blk = 4, 1024, 256
	k := kernel(t, "all_gather.tle", "all_gather_push")
	b, err := k.Compile(tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BLOCK": fmt.Sprint(blk), "T": "f32"}}, tle.GPUOptions{})
	require.NoError(t, err)
	programs := n / blk
	recvOff, flagsOff, syncOff := 0, 4*world*n, 4*world*n+256
	m := newOneGPUMesh(t, ctx, world, syncOff+nvptx.DeviceSyncBytes(world, programs))
	xs, outs := make([]cuda.DevicePtr, world), make([]cuda.DevicePtr, world)
	var want []float32
	for r := range world {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r*n + i)
		}
		want = append(want, x...)
		var err error
		xs[r], err = ctx.Alloc(4 * n)
		require.NoError(t, err)
		defer ctx.Free(xs[r])
		require.NoError(t, ctx.CopyHtoD(xs[r], f32Bytes(x)))
		outs[r], err = ctx.Alloc(4 * world * n)
		require.NoError(t, err)
		defer ctx.Free(outs[r])
	}
	m.launch(t, b, [3]int{programs, 1, 1}, syncOff, func(r int) []any {
		return []any{xs[r], m.heaps[r] + cuda.DevicePtr(recvOff), outs[r], m.heaps[r] + cuda.DevicePtr(flagsOff), int32(n)}
	})
	for r := range outs {
		got := make([]byte, 4*world*n)
		require.NoError(t, ctx.CopyDtoH(got, outs[r]))
		require.Equal(t, want, bytesF32(got), "rank %d", r)
	}
}

// TestGPUAgMatmulOneGPUMesh: ag_matmul in f32 on 4 ranks of one GPU with
// PlanAgMatmul's default tiles, partial tiles in every dimension, launched
// twice on the same flags (epochs 1 and 2, each rank's a new the second
// time), against float64 all_gather(A) @ B.
func TestGPUAgMatmulOneGPUMesh(t *testing.T) {
	ctx := cudatest.Require(t)
	const world, mr, n, kk = 4, 200, 176, 144
	l, err := PlanAgMatmul(world, mr, n, kk, "f32", MatmulOptions{})
	require.NoError(t, err)
	k := kernel(t, l.File, l.Kernel)
	b, err := k.Compile(tle.CompileOptions{Defines: l.Defines}, tle.GPUOptions{})
	require.NoError(t, err)
	programs := l.Grid[0] * l.Grid[1]
	agOff, flagsOff := 0, (4*mr*kk+255)/256*256
	syncOff := flagsOff + (4*AgMatmulFlags(world, mr, 128)+255)/256*256
	m := newOneGPUMesh(t, ctx, world, syncOff+nvptx.DeviceSyncBytes(world, programs))
	rnd := rand.New(rand.NewPCG(23, world))
	bs := tpData(rnd, kk*n, "f32")
	devA, devB, devC := make([]cuda.DevicePtr, world), make([]cuda.DevicePtr, world), make([]cuda.DevicePtr, world)
	alloc := func(n int) cuda.DevicePtr {
		p, err := ctx.Alloc(4 * n)
		require.NoError(t, err)
		t.Cleanup(func() { ctx.Free(p) })
		return p
	}
	f32s := func(xs []float64) []float32 {
		out := make([]float32, len(xs))
		for i, x := range xs {
			out[i] = float32(x)
		}
		return out
	}
	for r := range world {
		devA[r], devB[r], devC[r] = alloc(mr*kk), alloc(kk*n), alloc(world*mr*n)
		require.NoError(t, ctx.CopyHtoD(devB[r], f32Bytes(f32s(bs))))
	}
	for epoch := 1; epoch <= 2; epoch++ {
		as := make([][]float64, world)
		for r := range world {
			as[r] = tpData(rnd, mr*kk, "f32")
			require.NoError(t, ctx.CopyHtoD(devA[r], f32Bytes(f32s(as[r]))))
			require.NoError(t, ctx.MemsetD8(devC[r], 0, 4*world*mr*n))
		}
		m.launch(t, b, l.Grid, syncOff, func(r int) []any {
			return []any{devA[r], m.heaps[r] + cuda.DevicePtr(agOff), devB[r], devC[r], m.heaps[r] + cuda.DevicePtr(flagsOff),
				int32(mr), int32(n), int32(kk), int32(epoch)}
		})
		want, mag := agMatmulRef(as, bs, mr, n, kk)
		for r := range world {
			got := make([]byte, 4*world*mr*n)
			require.NoError(t, ctx.CopyDtoH(got, devC[r]))
			g := bytesF32(got)
			gs := make([]float64, len(g))
			for i, v := range g {
				gs[i] = float64(v)
			}
			requireClose(t, fmt.Sprintf("epoch %d rank %d", epoch, r), want, mag, gs, tpTol("f32", kk))
		}
	}
}

// TestGPUMatmulRSOneGPUMesh: matmul_rs in f32 on 4 ranks of one GPU with
// PlanMatmulRS's default tiles, partial tiles in every dimension,
// launched twice on the same flags (epochs 1 and 2, new inputs the second
// time), against float64 sums of the ranks' products.
func TestGPUMatmulRSOneGPUMesh(t *testing.T) {
	ctx := cudatest.Require(t)
	const world, mr, n, kk = 4, 200, 176, 144
	l, err := PlanMatmulRS(world, mr, n, kk, "f32", MatmulOptions{})
	require.NoError(t, err)
	k := kernel(t, l.File, l.Kernel)
	b, err := k.Compile(tle.CompileOptions{Defines: l.Defines}, tle.GPUOptions{})
	require.NoError(t, err)
	programs := l.Grid[0] * l.Grid[1]
	partOff, flagsOff := 0, (4*world*mr*n+255)/256*256
	syncOff := flagsOff + (4*MatmulRSFlags(mr, n, 128, 128)+255)/256*256
	m := newOneGPUMesh(t, ctx, world, syncOff+nvptx.DeviceSyncBytes(world, programs))
	rnd := rand.New(rand.NewPCG(31, world))
	alloc := func(n int) cuda.DevicePtr {
		p, err := ctx.Alloc(4 * n)
		require.NoError(t, err)
		t.Cleanup(func() { ctx.Free(p) })
		return p
	}
	upload := func(p cuda.DevicePtr, xs []float64) {
		f := make([]float32, len(xs))
		for i, x := range xs {
			f[i] = float32(x)
		}
		require.NoError(t, ctx.CopyHtoD(p, f32Bytes(f)))
	}
	devA, devB, devOut := make([]cuda.DevicePtr, world), make([]cuda.DevicePtr, world), make([]cuda.DevicePtr, world)
	for r := range world {
		devA[r], devB[r], devOut[r] = alloc(world*mr*kk), alloc(kk*n), alloc(mr*n)
	}
	for epoch := 1; epoch <= 2; epoch++ {
		as, bs := make([][]float64, world), make([][]float64, world)
		for r := range world {
			as[r], bs[r] = tpData(rnd, world*mr*kk, "f32"), tpData(rnd, kk*n, "f32")
			upload(devA[r], as[r])
			upload(devB[r], bs[r])
			require.NoError(t, ctx.MemsetD8(devOut[r], 0, 4*mr*n))
		}
		m.launch(t, b, l.Grid, syncOff, func(r int) []any {
			return []any{devA[r], devB[r], m.heaps[r] + cuda.DevicePtr(partOff), devOut[r], m.heaps[r] + cuda.DevicePtr(flagsOff),
				int32(mr), int32(n), int32(kk), int32(epoch)}
		})
		want, mag := matmulRSRef(as, bs, mr, n, kk)
		for r := range world {
			got := make([]byte, 4*mr*n)
			require.NoError(t, ctx.CopyDtoH(got, devOut[r]))
			g := bytesF32(got)
			gs := make([]float64, len(g))
			for i, v := range g {
				gs[i] = float64(v)
			}
			requireClose(t, fmt.Sprintf("epoch %d rank %d", epoch, r), want[r], mag[r], gs, tpTol("f32", kk+world))
		}
	}
}
