package collectives

import (
	"fmt"

	"github.com/tlego/tle/tle"
)

// The tensor-parallel matmul fused with its all-gather (tp_matmul.tle's
// ag_matmul) on a mesh of GPUs.

// MatmulOptions are ag_matmul's tiles.
type MatmulOptions struct {
	// BM, BN and BK are the tile's rows, columns and K step, powers of two
	// (BM and BN from 16 to 256, BK from 16 to 128); 0: 128, 128 and 64.
	BM, BN, BK int
}

func (o MatmulOptions) tiles() (bm, bn, bk int, err error) {
	bm, bn, bk = o.BM, o.BN, o.BK
	if bm == 0 {
		bm = 128
	}
	if bn == 0 {
		bn = 128
	}
	if bk == 0 {
		bk = 64
	}
	for _, c := range []struct {
		name   string
		v, max int
	}{{"BM", bm, 256}, {"BN", bn, 256}, {"BK", bk, 128}} {
		if c.v < 16 || c.v > c.max || c.v&(c.v-1) != 0 {
			return 0, 0, 0, fmt.Errorf("collectives: ag_matmul tile %s %d: want a power of two from 16 to %d", c.name, c.v, c.max)
		}
	}
	return bm, bn, bk, nil
}

// AgMatmulFlags is the length of ag_matmul's flags (i32, symmetric) for
// shards of mr rows and tile rows bm: one per rank and strip of bm rows.
func AgMatmulFlags(world, mr, bm int) int { return world * ((mr + bm - 1) / bm) }

// PlanAgMatmul is the launch of ag_matmul on world ranks, each holding mr
// rows of A ([mr, k]) and a B shard [k, n], in dtype (bf16 or f32): its
// bindings and its grid (the strips of bm rows of a shard by the tiles of
// bn columns). It checks the sizes are at least 1 and the offsets the
// kernel computes fit an i32 (world*mr*n for C, mr*k, k*n).
func PlanAgMatmul(world, mr, n, k int, dtype string, o MatmulOptions) (Launch, error) {
	bm, bn, bk, err := o.tiles()
	if err != nil {
		return Launch{}, err
	}
	if world < 1 {
		return Launch{}, fmt.Errorf("collectives: %d devices", world)
	}
	if dtype != "bf16" && dtype != "f32" {
		return Launch{}, fmt.Errorf("collectives: ag_matmul of %s: want bf16 or f32", dtype)
	}
	if mr < 1 || n < 1 || k < 1 {
		return Launch{}, fmt.Errorf("collectives: ag_matmul of shards [%d, %d] by [%d, %d]: want every size >= 1", mr, k, k, n)
	}
	const maxI32 = 1<<31 - 1
	for _, c := range []struct {
		what string
		a, b int
	}{{"C's", world * mr, n}, {"A shard's", mr, k}, {"B's", k, n}} {
		if c.a > maxI32/c.b {
			return Launch{}, fmt.Errorf("collectives: ag_matmul: %s %d x %d elements overflow i32", c.what, c.a, c.b)
		}
	}
	return Launch{File: "tp_matmul.tle", Kernel: "ag_matmul",
		Defines: map[string]string{"WORLD": fmt.Sprint(world), "BM": fmt.Sprint(bm), "BN": fmt.Sprint(bn), "BK": fmt.Sprint(bk), "T": dtype},
		Grid:    [3]int{(mr + bm - 1) / bm, (n + bn - 1) / bn, 1}, N: n}, nil
}

// AgMatmul computes, on every rank r this process drives, c[r] =
// all_gather(A) @ b[r]: A's rows are the ranks' a (each [mr, k], rank
// order), b[r] is [k, n] and c[r] [World*mr, n], all of one dtype (bf16
// or f32; f32 accumulation, f32 operands as tf32). ag (the shard as the
// peers read it, at least mr*k elements) and flags (i32, at least
// AgMatmulFlags(World, mr, BM) elements, zero when allocated) are
// symmetric (GPUMesh.AllocSymmetric). epoch is 1 on the first launch on
// these flags and one more on each launch after (the flags are never
// reset). It does not wait.
func AgMatmul(m *tle.GPUMesh, a, ag, b, c, flags []*tle.DeviceBuffer, mr, n, k, epoch int, o MatmulOptions) error {
	dt, err := dtypeOf(a, ag, b, c)
	if err != nil {
		return err
	}
	l, err := PlanAgMatmul(m.World(), mr, n, k, dt.String(), o)
	if err != nil {
		return err
	}
	if epoch < 1 || epoch > 1<<31-1 {
		return fmt.Errorf("collectives: ag_matmul epoch %d: want 1 on the first launch on zeroed flags, one more on each after (up to 2^31-1)", epoch)
	}
	bm, _, _, _ := o.tiles()
	world := m.World()
	local := len(m.Ranks())
	for _, bs := range []struct {
		name string
		bufs []*tle.DeviceBuffer
		min  int
	}{{"a", a, mr * k}, {"ag", ag, mr * k}, {"b", b, k * n}, {"c", c, world * mr * n}, {"flags", flags, AgMatmulFlags(world, mr, bm)}} {
		if len(bs.bufs) != local {
			return fmt.Errorf("collectives: ag_matmul: %d %s buffers for %d local ranks", len(bs.bufs), bs.name, local)
		}
		for i, x := range bs.bufs {
			if x == nil {
				return fmt.Errorf("collectives: ag_matmul: %s of local rank %d is nil", bs.name, i)
			}
			if x.N < bs.min {
				return fmt.Errorf("collectives: ag_matmul: %s of local rank %d has %d elements, want at least %d", bs.name, i, x.N, bs.min)
			}
			if bs.name == "flags" && x.DType != tle.I32 {
				return fmt.Errorf("collectives: ag_matmul: flags of %s, want i32", x.DType)
			}
		}
	}
	kern, err := kernelOf(l.File, l.Kernel)
	if err != nil {
		return err
	}
	args := make([][]any, local)
	for i := range args {
		args[i] = []any{a[i], ag[i], b[i], c[i], flags[i], int32(mr), int32(n), int32(k), int32(epoch)}
	}
	return m.Launch(kern, tle.CompileOptions{Defines: l.Defines}, l.Grid, args)
}
