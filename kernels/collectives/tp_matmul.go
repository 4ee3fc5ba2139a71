package collectives

import (
	"fmt"

	"github.com/tlego/tle/tle"
)

// The tensor-parallel matmuls fused with their communication
// (tp_matmul.tle): ag_matmul (all-gather + matmul) and matmul_rs (matmul
// + reduce-scatter) on a mesh of GPUs.

// MatmulOptions are the fused matmuls' tiles.
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
			return 0, 0, 0, fmt.Errorf("collectives: tp matmul tile %s %d: want a power of two from 16 to %d", c.name, c.v, c.max)
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
// kernels compute fit an i32 (world*mr*n for C, world*mr*k, k*n).
func PlanAgMatmul(world, mr, n, k int, dtype string, o MatmulOptions) (Launch, error) {
	return planTP("ag_matmul", world, mr, n, k, dtype, o)
}

// planTP plans the fused matmul kernel (ag_matmul or matmul_rs).
func planTP(kernel string, world, mr, n, k int, dtype string, o MatmulOptions) (Launch, error) {
	bm, bn, bk, err := o.tiles()
	if err != nil {
		return Launch{}, err
	}
	if world < 1 {
		return Launch{}, fmt.Errorf("collectives: %d devices", world)
	}
	if dtype != "bf16" && dtype != "f32" {
		return Launch{}, fmt.Errorf("collectives: %s of %s: want bf16 or f32", kernel, dtype)
	}
	if mr < 1 || n < 1 || k < 1 {
		return Launch{}, fmt.Errorf("collectives: %s of shards [%d, %d] by [%d, %d]: want every size >= 1", kernel, mr, k, k, n)
	}
	const maxI32 = 1<<31 - 1
	for _, c := range []struct {
		what string
		a, b int
	}{{"C's", world * mr, n}, {"A shard's", mr, k}, {"B's", k, n}, {"A's", world * mr, k}} {
		if c.a > maxI32/c.b {
			return Launch{}, fmt.Errorf("collectives: %s: %s %d x %d elements overflow i32", kernel, c.what, c.a, c.b)
		}
	}
	return Launch{File: "tp_matmul.tle", Kernel: kernel,
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
	if err := checkBufs("ag_matmul", len(m.Ranks()), []bufReq{{"a", a, mr * k, 0}, {"ag", ag, mr * k, 0}, {"b", b, k * n, 0},
		{"c", c, world * mr * n, 0}, {"flags", flags, AgMatmulFlags(world, mr, bm), tle.I32}}); err != nil {
		return err
	}
	return launchTP(m, l, a, ag, b, c, flags, mr, n, k, epoch)
}

// MatmulRSFlags is the length of matmul_rs's flags (i32, symmetric): one
// per output tile of a rank's mr rows.
func MatmulRSFlags(mr, n, bm, bn int) int { return ((mr + bm - 1) / bm) * ((n + bn - 1) / bn) }

// PlanMatmulRS is the launch of matmul_rs on world ranks, each holding
// its K shard of A ([world*mr, k]) and of B ([k, n]) in dtype (bf16 or
// f32), each getting mr rows of the sum: its bindings and its grid (the
// tiles of a rank's [mr, n] output). It checks the sizes are at least 1
// and the kernel's offsets fit an i32.
func PlanMatmulRS(world, mr, n, k int, dtype string, o MatmulOptions) (Launch, error) {
	return planTP("matmul_rs", world, mr, n, k, dtype, o)
}

// MatmulRS gives every rank r this process drives out[r] = rows
// r*mr .. of the sum over ranks of a @ b: a[r] is [World*mr, k] (rank
// r's K shard of A's columns), b[r] [k, n], out[r] [mr, n], all of one
// dtype (bf16 or f32; f32 accumulation and sum, f32 operands as tf32).
// part (f32, at least World*mr*n elements) and flags (i32, at least
// MatmulRSFlags(mr, n, BM, BN), zero when allocated) are symmetric. epoch
// is 1 on the first launch on these flags and one more on each after
// (World*epoch must fit an i32). It does not wait.
func MatmulRS(m *tle.GPUMesh, a, b, part, out, flags []*tle.DeviceBuffer, mr, n, k, epoch int, o MatmulOptions) error {
	dt, err := dtypeOf(a, b, out)
	if err != nil {
		return err
	}
	l, err := PlanMatmulRS(m.World(), mr, n, k, dt.String(), o)
	if err != nil {
		return err
	}
	world := m.World()
	if epoch < 1 || epoch > (1<<31-1)/world {
		return fmt.Errorf("collectives: matmul_rs epoch %d: want 1 on the first launch on zeroed flags, one more on each after (World*epoch up to 2^31-1)", epoch)
	}
	bm, bn, _, _ := o.tiles()
	if err := checkBufs("matmul_rs", len(m.Ranks()), []bufReq{{"a", a, world * mr * k, 0}, {"b", b, k * n, 0}, {"part", part, world * mr * n, tle.F32},
		{"out", out, mr * n, 0}, {"flags", flags, MatmulRSFlags(mr, n, bm, bn), tle.I32}}); err != nil {
		return err
	}
	return launchTP(m, l, a, b, part, out, flags, mr, n, k, epoch)
}

// bufReq is what a fused matmul needs of one buffer list: at least min
// elements, and the dtype dt unless 0.
type bufReq struct {
	name string
	bufs []*tle.DeviceBuffer
	min  int
	dt   tle.DType
}

func checkBufs(kernel string, local int, reqs []bufReq) error {
	for _, q := range reqs {
		if len(q.bufs) != local {
			return fmt.Errorf("collectives: %s: %d %s buffers for %d local ranks", kernel, len(q.bufs), q.name, local)
		}
		for i, x := range q.bufs {
			if x == nil {
				return fmt.Errorf("collectives: %s: %s of local rank %d is nil", kernel, q.name, i)
			}
			if x.N < q.min {
				return fmt.Errorf("collectives: %s: %s of local rank %d has %d elements, want at least %d", kernel, q.name, i, x.N, q.min)
			}
			if q.dt != 0 && x.DType != q.dt {
				return fmt.Errorf("collectives: %s: %s of %s, want %s", kernel, q.name, x.DType, q.dt)
			}
		}
	}
	return nil
}

// launchTP launches a fused matmul: five buffer lists, then Mr, N, K and
// the epoch.
func launchTP(m *tle.GPUMesh, l Launch, b0, b1, b2, b3, b4 []*tle.DeviceBuffer, mr, n, k, epoch int) error {
	kern, err := kernelOf(l.File, l.Kernel)
	if err != nil {
		return err
	}
	args := make([][]any, len(m.Ranks()))
	for i := range args {
		args[i] = []any{b0[i], b1[i], b2[i], b3[i], b4[i], int32(mr), int32(n), int32(k), int32(epoch)}
	}
	return m.Launch(kern, tle.CompileOptions{Defines: l.Defines}, l.Grid, args)
}
