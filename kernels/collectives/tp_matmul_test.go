package collectives

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// The interpreter's tiles: 16 (the smallest dot), so the sizes below
// leave partial tiles in every dimension.
const tpBlock = 16

func tpOpts(world int, dtype string) tle.CompileOptions {
	b := fmt.Sprint(tpBlock)
	return tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BM": b, "BN": b, "BK": b, "T": dtype}}
}

// tpData is n random values in ±[0.25, 4), exact in dtype and, for f32,
// in tf32 (dot multiplies f32 operands as tf32: exact ones make every
// product exact, so the only error is the f32 accumulation's).
func tpData(r *rand.Rand, n int, dtype string) []float64 {
	xs := randData(r, n, dtype)
	for i := range xs {
		xs[i] = floats.RoundTF32(xs[i])
	}
	return xs
}

// agMatmulRef is all_gather(as) @ b in float64, [world*mr, n], and the
// sums of the products' magnitudes.
func agMatmulRef(as [][]float64, b []float64, mr, n, k int) (want, mag []float64) {
	world := len(as)
	want, mag = make([]float64, world*mr*n), make([]float64, world*mr*n)
	for r, a := range as {
		for i := range mr {
			for j := range n {
				var s, m float64
				for l := range k {
					p := a[i*k+l] * b[l*n+j]
					s += p
					m += math.Abs(p)
				}
				want[(r*mr+i)*n+j], mag[(r*mr+i)*n+j] = s, m
			}
		}
	}
	return want, mag
}

// tpTol is the error allowed relative to the sum of the products'
// magnitudes: the products are exact (bf16 or tf32 operands), k of them
// summed in f32 err by at most k*2^-24 of it; a bf16 result adds one
// rounding, 2^-8 of |C| <= the sum.
func tpTol(dtype string, k int) float64 {
	t := float64(k) * 0x1p-24
	if dtype == "bf16" {
		t += 0x1p-8
	}
	return t
}

type agCase struct {
	world, mr, n, k int
	dtype           string
}

// runAgMatmul runs ag_matmul (its source src) on c.world simulated
// devices with random inputs and returns every rank's c and the reference.
func runAgMatmul(t *testing.T, k *tle.Kernel, c agCase, seed uint64) (outs [][]float64, want, mag []float64, err error) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(c.world)))
	as := make([][]float64, c.world)
	for d := range as {
		as[d] = tpData(r, c.mr*c.k, c.dtype)
	}
	b := tpData(r, c.k*c.n, c.dtype) // each rank's B shard: the same values, its own buffer
	tm := (c.mr + tpBlock - 1) / tpBlock
	args := make([]map[string]any, c.world)
	cs := make([]*tle.Tensor, c.world)
	for d := range args {
		cs[d] = tle.NewTensor(c.world * c.mr * c.n)
		args[d] = map[string]any{"a": tensor(as[d]), "ag": tle.NewTensor(c.mr * c.k), "b": tensor(b), "c": cs[d],
			"flags": tle.NewTensor(c.world * tm), "Mr": c.mr, "N": c.n, "K": c.k, "epoch": 1}
	}
	grid := [3]int{tm, (c.n + tpBlock - 1) / tpBlock, 1}
	err = k.RunDevices(context.Background(), tle.SimDevices(c.world), grid, tpOpts(c.world, c.dtype), args, "ag", "flags")
	for _, t := range cs {
		outs = append(outs, t.Data)
	}
	want, mag = agMatmulRef(as, b, c.mr, c.n, c.k)
	return outs, want, mag, err
}

// TestAgMatmul: all-gather + matmul on 2, 4 and 8 simulated devices, in
// f32 and bf16, against the float64 all_gather(A) @ B. Mr = 19, N = 24,
// K = 40: partial tiles in every dimension.
func TestAgMatmul(t *testing.T) {
	k := kernel(t, "tp_matmul.tle", "ag_matmul")
	for _, dtype := range []string{"f32", "bf16"} {
		for _, world := range worlds {
			t.Run(fmt.Sprintf("%s/%d", dtype, world), func(t *testing.T) {
				c := agCase{world: world, mr: 19, n: 24, k: 40, dtype: dtype}
				outs, want, mag, err := runAgMatmul(t, k, c, 17)
				require.NoError(t, err)
				for d := range outs {
					requireClose(t, fmt.Sprintf("rank %d", d), want, mag, outs[d], tpTol(dtype, c.k))
				}
			})
		}
	}
}

// Without the signal_wait, a rank's remote loads of a peer's ag are not
// ordered after the peer's copy-in: the interpreter reports the race,
// naming the copy's store and the remote load.
func TestAgMatmulRaceWithoutWait(t *testing.T) {
	p, err := tle.Load(FS, "tp_matmul.tle")
	require.NoError(t, err)
	src := string(p.Source())
	const wait = `signal_wait(flags + src*tm + pm, epoch, cmp: "ge")`
	require.Contains(t, src, wait)
	line := func(s string) int { return strings.Count(src[:strings.Index(src, s)], "\n") + 1 }
	storeLine, loadLine := line("store(ag + offs"), line("load(remote(ag")
	q, err := tle.Parse("tp_matmul.tle", []byte(strings.Replace(src, wait, "", 1)))
	require.NoError(t, err)
	k, err := q.Kernel("ag_matmul")
	require.NoError(t, err)
	_, _, _, err = runAgMatmul(t, k, agCase{world: 2, mr: 19, n: 24, k: 40, dtype: "f32"}, 5)
	require.Error(t, err)
	msg := err.Error()
	t.Log(msg)
	require.Contains(t, msg, "race on symmetric buffer ag")
	require.Contains(t, msg, fmt.Sprintf("tp_matmul.tle:%d:", storeLine))
	require.Contains(t, msg, fmt.Sprintf("tp_matmul.tle:%d:", loadLine))
}

var (
	reLabel   = regexp.MustCompile(`(?m)^(\$L__BB\d+_\d+):`)
	reProduct = tletest.PTXLine(`(wgmma\.mma_async|mma\.sync)\.\S+`)
	reSelp    = tletest.PTXLine(`selp\.b64\s+(%rd\d+), (%rd\d+), (%rd\d+), %p\d+;`)
	reLoad    = tletest.PTXLine(`(cp\.async\.\w+\.shared\.global|ld\.global\.\S+)\s`)
)

// TestAgMatmulPTX compiles ag_matmul with llc-19 for sm_90a on meshes of
// 2, 4 and 8 devices, in bf16 and f32, with Mr, N and K multiples of 16
// (as a launch specialises them), and checks its K loop: a loop (a label
// and its back-edge) that holds the tensor-core product (wgmma or
// mma.sync), a load from global memory, and the remote address: an
// add.s64 of the peer's heap distance, the end of the selp.b64 chain that
// picks the ring's computed rank among the heap_bases table's registers,
// so no table load or call per access. The signal_wait's acquire spin
// comes before the loop, the hidden parameters are the ABI's, and the
// kernel has one handshake (the closing barrier) and the copy-in's
// release signal.
func TestAgMatmulPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "tp_matmul.tle", "ag_matmul")
	for _, world := range worlds {
		for _, dtype := range []string{"bf16", "f32"} {
			what := fmt.Sprintf("WORLD=%d T=%s", world, dtype)
			b, err := k.Compile(tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BM": "64", "BN": "64", "BK": "32", "T": dtype},
				Div16: []string{"Mr", "N", "K"}}, tle.GPUOptions{Toolchain: "llc"})
			require.NoError(t, err, what)
			require.Equal(t, world, b.MeshDevices, what)
			require.Equal(t, []string{"rank", "heap_bases", "sync"}, b.Hidden, what)
			ptx := b.PTX
			require.Equal(t, 1, count(ptx, `atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], 1;`), what+": the closing barrier's handshake")
			require.Equal(t, 1, count(ptx, `@%p st\.release\.sys\.global\.b32 \[%rd\d+\], %r\d+;`), what+": the copy-in's signal (set)")
			ends := selpEnds(ptx)
			require.NotEmpty(t, ends, what+": no selp.b64 of a peer's heap distance")
			found := false
			for _, l := range reLabel.FindAllStringSubmatchIndex(ptx, -1) {
				label := ptx[l[2]:l[3]]
				back := strings.Index(ptx[l[1]:], "bra.uni \t"+label+";")
				if back < 0 {
					continue
				}
				body := ptx[l[1] : l[1]+back]
				if !reProduct.MatchString(body) {
					continue
				}
				found = true
				require.True(t, reLoad.MatchString(body), what+": no global load in the K loop")
				remote := false
				for _, r := range ends {
					if tletest.PTXLine(`add\.s64\s+%rd\d+, %rd\d+, ` + r + `;`).MatchString(body) {
						remote = true
					}
				}
				require.True(t, remote, what+": no remote address (an add of the selected heap distance) in the K loop")
				spin := tletest.PTXLine(`ld\.acquire\.sys\.global\.b32 %r\d+, \[%rd\d+\];`).FindAllStringIndex(ptx, -1)
				require.NotEmpty(t, spin, what)
				before := false
				for _, s := range spin {
					before = before || s[0] < l[0]
				}
				require.True(t, before, what+": the signal_wait's spin comes after the K loop")
			}
			require.True(t, found, what+": no loop holds the product")
		}
	}
}

func TestPlanAgMatmul(t *testing.T) {
	l, err := PlanAgMatmul(4, 300, 200, 96, "bf16", MatmulOptions{})
	require.NoError(t, err)
	require.Equal(t, "ag_matmul", l.Kernel)
	require.Equal(t, [3]int{3, 2, 1}, l.Grid) // 300 rows in strips of 128, 200 columns in tiles of 128
	require.Equal(t, map[string]string{"WORLD": "4", "BM": "128", "BN": "128", "BK": "64", "T": "bf16"}, l.Defines)
	require.Equal(t, 4*3, AgMatmulFlags(4, 300, 128))
	l, err = PlanAgMatmul(2, 16, 16, 16, "f32", MatmulOptions{BM: 64, BN: 32, BK: 16})
	require.NoError(t, err)
	require.Equal(t, [3]int{1, 1, 1}, l.Grid)
	for _, c := range []struct {
		world, mr, n, k int
		dtype           string
		o               MatmulOptions
		want            string
	}{
		{0, 16, 16, 16, "f32", MatmulOptions{}, "0 devices"},
		{2, 0, 16, 16, "f32", MatmulOptions{}, "want every size >= 1"},
		{2, 16, 16, 16, "f16", MatmulOptions{}, "want bf16 or f32"},
		{2, 16, 16, 16, "f32", MatmulOptions{BM: 48}, "tile BM 48"},
		{2, 16, 16, 16, "f32", MatmulOptions{BK: 256}, "tile BK 256"},
		{8, 1 << 16, 1 << 13, 16, "f32", MatmulOptions{}, "C's 524288 x 8192 elements overflow i32"},
	} {
		_, err := PlanAgMatmul(c.world, c.mr, c.n, c.k, c.dtype, c.o)
		require.ErrorContains(t, err, c.want)
	}
	// a nil mesh has no devices: an error, not a panic
	require.ErrorContains(t, AgMatmul(nil, nil, nil, nil, nil, nil, 16, 16, 16, 1, MatmulOptions{}), "0 devices")
	require.ErrorContains(t, MatmulRS(nil, nil, nil, nil, nil, nil, 16, 16, 16, 1, MatmulOptions{}), "0 devices")
	l, err = PlanMatmulRS(4, 300, 200, 96, "f32", MatmulOptions{BN: 64})
	require.NoError(t, err)
	require.Equal(t, "matmul_rs", l.Kernel)
	require.Equal(t, [3]int{3, 4, 1}, l.Grid)
	require.Equal(t, 12, MatmulRSFlags(300, 200, 128, 64))
	_, err = PlanMatmulRS(8, 1<<16, 16, 1<<13, "f32", MatmulOptions{})
	require.ErrorContains(t, err, "matmul_rs: A's 524288 x 8192 elements overflow i32")
	_, err = PlanMatmulRS(2, 16, 16, 16, "i8", MatmulOptions{})
	require.ErrorContains(t, err, "matmul_rs of i8: want bf16 or f32")
}

// matmulRSRef is, for each rank me, rows me*mr.. of the sum over ranks r
// of as[r] @ bs[r] ([world*mr, k] by [k, n]) in float64, and the sums of
// the products' magnitudes.
func matmulRSRef(as, bs [][]float64, mr, n, k int) (want, mag [][]float64) {
	world := len(as)
	for me := range world {
		w, m := make([]float64, mr*n), make([]float64, mr*n)
		for r := range world {
			for i := range mr {
				for j := range n {
					for l := range k {
						p := as[r][(me*mr+i)*k+l] * bs[r][l*n+j]
						w[i*n+j] += p
						m[i*n+j] += math.Abs(p)
					}
				}
			}
		}
		want, mag = append(want, w), append(mag, m)
	}
	return want, mag
}

// runMatmulRS runs matmul_rs on c.world simulated devices (c.k is each
// rank's K shard) and returns every rank's out and the reference.
func runMatmulRS(t *testing.T, k *tle.Kernel, c agCase, seed uint64) (outs, want, mag [][]float64, err error) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(c.world)))
	as, bs := make([][]float64, c.world), make([][]float64, c.world)
	for d := range as {
		as[d], bs[d] = tpData(r, c.world*c.mr*c.k, c.dtype), tpData(r, c.k*c.n, c.dtype)
	}
	tm, tn := (c.mr+tpBlock-1)/tpBlock, (c.n+tpBlock-1)/tpBlock
	args := make([]map[string]any, c.world)
	os := make([]*tle.Tensor, c.world)
	for d := range args {
		os[d] = tle.NewTensor(c.mr * c.n)
		args[d] = map[string]any{"a": tensor(as[d]), "b": tensor(bs[d]), "part": tle.NewTensor(c.world * c.mr * c.n), "out": os[d],
			"flags": tle.NewTensor(tm * tn), "Mr": c.mr, "N": c.n, "K": c.k, "epoch": 1}
	}
	err = k.RunDevices(context.Background(), tle.SimDevices(c.world), [3]int{tm, tn, 1}, tpOpts(c.world, c.dtype), args, "part", "flags")
	for _, t := range os {
		outs = append(outs, t.Data)
	}
	want, mag = matmulRSRef(as, bs, c.mr, c.n, c.k)
	return outs, want, mag, err
}

// TestMatmulRS: matmul + reduce-scatter on 2, 4 and 8 simulated devices,
// in f32 and bf16, against float64 sums of the ranks' products; Mr = 19,
// N = 24, K = 40 per rank: partial tiles everywhere. The error allowed is
// the partials' (K f32 additions of exact products) and the sum of WORLD
// of them, (K+WORLD)*2^-24 of the magnitudes, plus a bf16 rounding.
func TestMatmulRS(t *testing.T) {
	k := kernel(t, "tp_matmul.tle", "matmul_rs")
	for _, dtype := range []string{"f32", "bf16"} {
		for _, world := range worlds {
			t.Run(fmt.Sprintf("%s/%d", dtype, world), func(t *testing.T) {
				c := agCase{world: world, mr: 19, n: 24, k: 40, dtype: dtype}
				outs, want, mag, err := runMatmulRS(t, k, c, 29)
				require.NoError(t, err)
				for d := range outs {
					requireClose(t, fmt.Sprintf("rank %d", d), want[d], mag[d], outs[d], tpTol(dtype, c.k+world))
				}
			})
		}
	}
}

// Without the signal_wait, a rank's reads of its part race with the
// peers' remote stores of their partials.
func TestMatmulRSRaceWithoutWait(t *testing.T) {
	p, err := tle.Load(FS, "tp_matmul.tle")
	require.NoError(t, err)
	src := string(p.Source())
	const wait = `signal_wait(flags + pm*tn + pn, WORLD * epoch, cmp: "ge")`
	require.Contains(t, src, wait)
	line := func(s string) int { return strings.Count(src[:strings.Index(src, s)], "\n") + 1 }
	storeLine, loadLine := line("store(remote(part"), line("load(part")
	q, err := tle.Parse("tp_matmul.tle", []byte(strings.Replace(src, wait, "", 1)))
	require.NoError(t, err)
	k, err := q.Kernel("matmul_rs")
	require.NoError(t, err)
	_, _, _, err = runMatmulRS(t, k, agCase{world: 2, mr: 19, n: 24, k: 40, dtype: "f32"}, 5)
	require.Error(t, err)
	msg := err.Error()
	t.Log(msg)
	require.Contains(t, msg, "race on symmetric buffer part")
	require.Contains(t, msg, fmt.Sprintf("tp_matmul.tle:%d:", storeLine))
	require.Contains(t, msg, fmt.Sprintf("tp_matmul.tle:%d:", loadLine))
}

// selpEnds are the registers that end a selp.b64 chain (the rank picked
// among the heap_bases registers): those no other selp.b64 takes.
func selpEnds(ptx string) []string {
	var sel []string
	picked := map[string]bool{}
	for _, m := range reSelp.FindAllStringSubmatch(ptx, -1) {
		// m[1] is PTXLine's predicate
		picked[m[3]], picked[m[4]] = true, true
		sel = append(sel, m[2])
	}
	var ends []string
	for _, r := range sel {
		if !picked[r] {
			ends = append(ends, r)
		}
	}
	return ends
}

// TestMatmulRSPTX compiles matmul_rs with llc-19 for sm_90a on meshes of
// 2, 4 and 8 devices in bf16 and f32 and checks: the product (wgmma or
// mma.sync) and global loads in a loop; the partial's remote store, an
// address through an add of the peer's heap distance (the end of a
// selp.b64 chain) that a store takes; the signal's one
// atom.add.release.sys; one more ld.acquire.sys spin (the wait) than the
// closing barrier's.
func TestMatmulRSPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "tp_matmul.tle", "matmul_rs")
	for _, world := range worlds {
		for _, dtype := range []string{"bf16", "f32"} {
			what := fmt.Sprintf("WORLD=%d T=%s", world, dtype)
			b, err := k.Compile(tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BM": "64", "BN": "64", "BK": "32", "T": dtype},
				Div16: []string{"Mr", "N", "K"}}, tle.GPUOptions{Toolchain: "llc"})
			require.NoError(t, err, what)
			require.Equal(t, []string{"rank", "heap_bases", "sync"}, b.Hidden, what)
			ptx := b.PTX
			require.Equal(t, 1, count(ptx, `atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], 1;`), what+": the closing barrier's handshake")
			require.Equal(t, 2, count(ptx, `ld\.acquire\.sys\.global\.b32 %r\d+, \[%rd\d+\];`), what+": the barrier's and the wait's spins")
			sig := tletest.PTXLine(`atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], %r\d+;`).FindAllStringIndex(ptx, -1)
			require.Len(t, sig, 1, what+": one signal")
			loopEnd := -1
			for _, l := range reLabel.FindAllStringSubmatchIndex(ptx, -1) {
				label := ptx[l[2]:l[3]]
				back := strings.Index(ptx[l[1]:], "bra.uni \t"+label+";")
				if back >= 0 && reProduct.MatchString(ptx[l[1]:l[1]+back]) {
					require.True(t, reLoad.MatchString(ptx[l[1]:l[1]+back]), what+": no global load in the K loop")
					loopEnd = l[1] + back
				}
			}
			require.Positive(t, loopEnd, what+": no loop holds the product")
			// the remote store: an address x + the picked heap distance that a
			// st.global takes, directly or through shared memory (the
			// pointer tile's change of layout for the store)
			remote := false
			for _, r := range selpEnds(ptx) {
				for _, m := range tletest.PTXLine(`add\.s64\s+(%rd\d+), %rd\d+, `+r+`;`).FindAllStringSubmatch(ptx, -1) {
					if tletest.PTXLine(`st\.global\.\S+\s+\[`+m[2]+`(\+\d+)?\]`).MatchString(ptx) ||
						tletest.PTXLine(`st\.shared\.u64\s+\[%r\w+(\+\d+)?\], `+m[2]+`;`).MatchString(ptx) {
						remote = true
					}
				}
			}
			require.True(t, remote, what+": no store through the peer's heap distance")
		}
	}
}

// TestTPMatmulEpochs launches each fused matmul twice on the same
// symmetric buffers and flags (never reset), with new inputs the second
// time and epoch 2: the second launch waits for this launch's signals
// (no deadlock on the first launch's flag values, no race) and is right.
func TestTPMatmulEpochs(t *testing.T) {
	const world, mr, n, kk = 4, 19, 24, 40
	tm, tn := (mr+tpBlock-1)/tpBlock, (n+tpBlock-1)/tpBlock
	grid := [3]int{tm, tn, 1}
	o := tpOpts(world, "f32")
	ctx := context.Background()
	for _, name := range []string{"ag_matmul", "matmul_rs"} {
		k := kernel(t, "tp_matmul.tle", name)
		{
			r := rand.New(rand.NewPCG(41, 2))
			sym := map[string][]*tle.Tensor{}
			for range world {
				if name == "ag_matmul" {
					sym["ag"] = append(sym["ag"], tle.NewTensor(mr*kk))
					sym["flags"] = append(sym["flags"], tle.NewTensor(world*tm))
				} else {
					sym["part"] = append(sym["part"], tle.NewTensor(world*mr*n))
					sym["flags"] = append(sym["flags"], tle.NewTensor(tm*tn))
				}
			}
			for i, epoch := range []int{1, 2} {
				args := make([]map[string]any, world)
				as, bs, outs := make([][]float64, world), make([][]float64, world), make([]*tle.Tensor, world)
				for d := range args {
					args[d] = map[string]any{"flags": sym["flags"][d], "Mr": mr, "N": n, "K": kk, "epoch": epoch}
					if name == "ag_matmul" {
						as[d], bs[d] = tpData(r, mr*kk, "f32"), tpData(r, kk*n, "f32")
						outs[d] = tle.NewTensor(world * mr * n)
						args[d]["a"], args[d]["ag"], args[d]["b"], args[d]["c"] = tensor(as[d]), sym["ag"][d], tensor(bs[d]), outs[d]
					} else {
						as[d], bs[d] = tpData(r, world*mr*kk, "f32"), tpData(r, kk*n, "f32")
						outs[d] = tle.NewTensor(mr * n)
						args[d]["a"], args[d]["b"], args[d]["part"], args[d]["out"] = tensor(as[d]), tensor(bs[d]), sym["part"][d], outs[d]
					}
				}
				syms := []string{"ag", "flags"}
				if name == "matmul_rs" {
					syms = []string{"part", "flags"}
				}
				require.NoError(t, k.RunDevices(ctx, tle.SimDevices(world), grid, o, args, syms...), "%s launch %d", name, i+1)
				for d := range outs {
					var want, mag []float64
					if name == "ag_matmul" {
						// every rank's b differs here: rank d's C is all_gather(A) @ b[d]
						want, mag = agMatmulRef(as, bs[d], mr, n, kk)
					} else {
						w, m := matmulRSRef(as, bs, mr, n, kk)
						want, mag = w[d], m[d]
					}
					requireClose(t, fmt.Sprintf("%s launch %d rank %d", name, i+1, d), want, mag, outs[d].Data, tpTol("f32", kk+world))
				}
			}
		}
	}
}
