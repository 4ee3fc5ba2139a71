package prefill

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/paged/pagedtest"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestPrefillBenchPlan: the bench launches what the op would for its
// rows' sizes: every FP8 row's plan peels step 0 exactly when its walk of
// cdiv(L, 128) steps is short (the bench once built its sizes without the
// walk's length and timed the peeled kernel everywhere).
func TestPrefillBenchPlan(t *testing.T) {
	for _, row := range BenchRows() {
		if row.DType != paged.DTypeFP8 {
			continue
		}
		np := int((row.Shape.L + int64(row.Shape.Page) - 1) / int64(row.Shape.Page))
		d, err := benchDims(row, PlanBench(row, nil), BenchOptions{}, row.Shape.B*np+1)
		require.NoError(t, err, row.Name)
		tiles := int((row.Shape.L + Tile - 1) / Tile)
		require.Equal(t, tiles, d.KeyTiles, row.Name)
		pl := Plan(d)
		require.Equal(t, "attn_prefill_fp8_k128", pl.Kernel, row.Name)
		want := "0"
		if tiles <= fp8K128PeelSteps {
			want = "1"
		}
		require.Equal(t, want, pl.Defines["PEEL"], row.Name)
	}
}

// TestPrefillBenchRows: the rows carry HPC-Ops' bench names exactly (the
// 24 FP8 configurations, BF16 paged at the three shapes, BF16 no-cache at
// 4096 and 32768, plus ours at 8192), each once, with their settings.
func TestPrefillBenchRows(t *testing.T) {
	rows := BenchRows()
	byName := map[string]BenchRow{}
	for _, r := range rows {
		_, dup := byName[r.Name]
		require.False(t, dup, "row %s twice", r.Name)
		byName[r.Name] = r
	}
	fp8 := 0
	for _, s := range []string{"127x127", "512x4096", "512x32768"} {
		for _, q := range []int{0, 1} {
			for _, m := range []string{"dense", "masked"} {
				for _, l := range []string{"nhd", "hnd"} {
					r, ok := byName[fmt.Sprintf("prefill_fp8_q%d_%s_%s/%s", q, m, l, s)]
					require.True(t, ok, "no FP8 row q%d %s %s %s", q, m, l, s)
					require.Equal(t, BenchRow{Name: r.Name, Shape: r.Shape, DType: paged.DTypeFP8, Quant: q, Layout: l, Masked: m == "masked"}, r)
					require.Equal(t, s, r.Shape.Name)
					fp8++
				}
			}
		}
		for _, l := range []string{"nhd", "hnd"} {
			r, ok := byName["prefill_kvcache_bf16_"+l+"/"+s]
			require.True(t, ok)
			require.Equal(t, paged.DTypeBF16, r.DType)
			require.False(t, r.Masked || r.Identity)
			require.True(t, byName["prefill_kvcache_bf16_masked_"+l+"/"+s].Masked)
		}
	}
	require.Equal(t, 24, fp8)
	for _, n := range []int64{4096, 8192, 32768} {
		r, ok := byName[fmt.Sprintf("prefill_bf16_nocache/%dx%d", n, n)]
		require.True(t, ok)
		require.True(t, r.Identity)
		require.Equal(t, Shape{r.Shape.Name, n, n, 32, 4, 64, 1}, r.Shape)
	}
	require.Len(t, rows, 24+12+3)
	for _, r := range rows {
		require.Equal(t, [4]int{1, 32, 4, 64}, [4]int{r.Shape.B, r.Shape.Hq, r.Shape.Hkv, r.Shape.Page}, r.Name)
	}
}

// bruteKeys counts, for each (request, head, query) of s, the keys that
// are causal and whose tile of m is on.
func bruteKeys(s Shape, m []float64, kt int) float64 {
	qt := int((s.Lq + 127) / 128)
	var n float64
	for bh := range s.B * s.Hq {
		for q := range s.Lq {
			row := m[(bh*qt+int(q/128))*kt:][:kt]   // q's tile row of the mask
			for k := range min(s.L, s.L-s.Lq+q+1) { // the causal keys, one by one
				if row[k/128] == 1 {
					n++
				}
			}
		}
	}
	return n
}

// TestPrefillBenchMask: HPC-Ops' rule. Density near 0.25 over the large
// shape; in every q tile nothing past its causal frontier, the frontier
// and its first row's tile on; the visible FLOPs match a brute-force count
// on small shapes (offsets L - Lq that do and do not divide by 128, Lq
// past one tile, B 2), a full mask gives the dense causal count.
func TestPrefillBenchMask(t *testing.T) {
	for _, s := range append([]Shape{
		{"small", 300, 700, 3, 1, 64, 2},
		{"aligned", 256, 512, 2, 1, 64, 1},
		{"self", 385, 385, 2, 1, 64, 1},
	}, Shapes...) {
		m, kt := BenchMask(rand.New(rand.NewPCG(5, 6)), s)
		qt := int((s.Lq + 127) / 128)
		require.Equal(t, int((s.L+127)/128), kt)
		require.Len(t, m, s.B*s.Hq*qt*kt)
		for bh := range s.B * s.Hq {
			for i := range qt {
				row := m[(bh*qt+i)*kt:][:kt]
				firstQ, lastQ := int64(i*128), min(int64(i*128+127), s.Lq-1)
				first, last := int((s.L-s.Lq+firstQ)/128), int((s.L-s.Lq+lastQ)/128)
				require.Equal(t, 1.0, row[first], "%s: first-row tile of q tile %d", s.Name, i)
				require.Equal(t, 1.0, row[last], "%s: frontier tile of q tile %d", s.Name, i)
				for j := last + 1; j < kt; j++ {
					require.Equal(t, 0.0, row[j], "%s: tile %d past q tile %d's frontier %d", s.Name, j, i, last)
				}
			}
		}
		if s.Lq*s.L <= 512*4096 {
			require.Equal(t, 4*128*bruteKeys(s, m, kt), MaskedFLOPs(s, m, kt), s.Name)
			for i := range m {
				m[i] = 1
			}
			require.Equal(t, 4*128*bruteKeys(s, m, kt), FLOPs(s), s.Name)
			require.Equal(t, FLOPs(s), MaskedFLOPs(s, m, kt), s.Name)
		}
	}
	require.Equal(t, FLOPs(Shapes[1]), MaskedFLOPs(Shapes[1], nil, 0))

	// the bench's plans: one mask per shape (fixed seed), density ~0.25
	// where there are many tiles, 1 for the single tile of 127 x 127
	for _, c := range []struct {
		name     string
		lo, hi   float64
		speedMin float64 // dense / visible work at least
	}{
		{"127x127", 1, 1, 1},
		{"512x4096", 0.22, 0.30, 3},
		{"512x32768", 0.24, 0.27, 3.5},
	} {
		var plans []BenchPlan
		for _, r := range BenchRows() {
			if r.Masked && r.Shape.Name == c.name {
				plans = append(plans, PlanBench(r, nil))
			}
		}
		require.Len(t, plans, 6, c.name) // fp8 q0/q1 x nhd/hnd, bf16 nhd/hnd
		p := plans[0]
		require.InDelta(t, (c.lo+c.hi)/2, p.Density, (c.hi-c.lo)/2+1e-9, c.name)
		require.GreaterOrEqual(t, p.DenseFLOPs/p.FLOPs, c.speedMin, c.name)
		for _, q := range plans[1:] {
			require.Equal(t, p, q, "%s: one mask per shape", c.name)
		}
		// the mask has the shape Validate wants
		s := Shapes[0]
		for _, x := range Shapes {
			if x.Name == c.name {
				s = x
			}
		}
		d := &Dims{Dims: paged.Dims{B: 1, Hq: 32}}
		d.setQTiles(s.Lq)
		require.NoError(t, d.checkMask(&tle.Tensor{Shape: []int{1, 32, d.QT, p.MaskKT}, Data: p.Mask}, []int64{s.L}))
	}
	dense := PlanBench(BenchRows()[0], nil)
	require.Nil(t, dense.Mask)
	require.Equal(t, dense.DenseFLOPs, dense.FLOPs)
	require.Equal(t, FLOPs(Shapes[0]), dense.FLOPs)
}

// TestPrefillBenchMasks: masks given by shape (LoadBenchMasks from
// DIR/mask_NAME.npy, as tools/hpc_masks.py saves HPC-Ops' draw) replace
// the bench's own draw for the masked rows of that shape, with their
// density, most active tiles of a program and work; a shape without a file
// keeps the draw; a file of the wrong shape or with values other than 0
// and 1, or a missing directory, is refused naming the argument.
func TestPrefillBenchMasks(t *testing.T) {
	dir := t.TempDir()
	s := Shapes[1] // 512x4096: 4 q tiles, 32 key tiles
	qt, kt := 4, 32
	m := make([]int64, s.Hq*qt*kt)
	for h := range s.Hq {
		for i := range qt {
			row := m[(h*qt+i)*kt:][:kt]
			last := int((s.L - s.Lq + min(int64(i+1)*Tile, s.Lq) - 1) / Tile)
			for j := 0; j <= last; j += 2 + h%3 { // every 2nd to 4th tile up to the frontier
				row[j] = 1
			}
			row[last] = 1
		}
	}
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "mask_512x4096.npy"), &npy.Array{Shape: []int{1, s.Hq, qt, kt}, DType: "|u1", I64: m}))
	masks, err := LoadBenchMasks(dir)
	require.NoError(t, err)
	require.Len(t, masks, 1)
	var row, other BenchRow
	for _, r := range BenchRows() {
		if r.Masked && r.Shape.Name == s.Name {
			row = r
		}
		if r.Masked && r.Shape.Name == "512x32768" {
			other = r
		}
	}
	p := PlanBench(row, masks)
	require.Equal(t, kt, p.MaskKT)
	var on, most float64
	for i, x := range m {
		on += float64(x)
		if i%kt == kt-1 {
			var c float64
			for _, y := range m[i+1-kt : i+1] {
				c += float64(y)
			}
			most = max(most, c)
		}
	}
	require.InDelta(t, on/float64(len(m)), p.Density, 1e-12)
	require.Equal(t, int(most), p.MaxTiles)
	require.Less(t, p.FLOPs, p.DenseFLOPs)
	require.Equal(t, PlanBench(other, nil), PlanBench(other, masks), "no file for 512x32768: the bench's draw")
	drawn := PlanBench(row, nil)
	require.NotEqual(t, drawn.Mask, p.Mask)
	require.Equal(t, 16, drawn.MaxTiles, "the draw's 512x4096 programs: 2 to 16 active tiles")

	m[5] = 2
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "mask_512x4096.npy"), &npy.Array{Shape: []int{1, s.Hq, qt, kt}, DType: "|u1", I64: m}))
	_, err = LoadBenchMasks(dir)
	requireArgErr(t, err, "masks", "element 5 = 2; a block mask holds 0 or 1")
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "mask_512x4096.npy"), &npy.Array{Shape: []int{s.Hq, qt, kt}, DType: "|u1", I64: m}))
	_, err = LoadBenchMasks(dir)
	requireArgErr(t, err, "masks", "want an integer or bool array of shape [1 32 4 32]")
	_, err = LoadBenchMasks(filepath.Join(dir, "nope"))
	requireArgErr(t, err, "masks", "no such file or directory")
}

// requireArgErr requires err to be an paged.ArgError naming arg whose message
// holds text.
func requireArgErr(t *testing.T, err error, arg, text string) {
	t.Helper()
	var ae *paged.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, arg, ae.Arg)
	require.Contains(t, ae.Msg, text)
}

// TestPrefillBenchMaskRun: a mask of the bench's rule (first-row and
// frontier tiles in different columns) through the kernels against the
// float64 reference, BF16 and FP8.
func TestPrefillBenchMaskRun(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(65, 66))
	for _, fp8 := range []bool{false, true} {
		c := prefillCase{name: fmt.Sprintf("bench mask fp8 %v", fp8), fp8: fp8, quant: 1, page: 64, hkv: 1, g: 4, qlens: []int64{200}, lens: []int64{520}}
		in, p := makePrefill(r, c)
		m, kt := BenchMask(rand.New(rand.NewPCG(BenchMaskSeed, 0)), Shape{Lq: 200, L: 520, Hq: 4, B: 1})
		in.BlockMask = &tle.Tensor{Shape: []int{1, 4, 2, kt}, Data: m}
		wo, wl := prefillReference(in, p)
		for _, dev := range devs {
			out, err := Run(dev, in, p)
			require.NoError(t, err, "%s on %s", c.name, dev.Name())
			pagedtest.RequireClose(t, c.name+" on "+dev.Name(), "", out.O.Data, out.LSE.Data, wo, wl, c.fp8)
		}
	}
}
