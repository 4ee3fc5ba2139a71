package tutorials

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestTMACopy loads tiles through a tensor descriptor into shared memory
// (the tensor is not a multiple of the block: the TMA fills zeros) and
// stores them plus one, masked, to a plain pointer.
func TestTMACopy(t *testing.T) {
	k := kernel(t, "tma_copy.tle", "tma_copy")
	r := rand.New(rand.NewPCG(13, 14))
	const m, n, bm, bn = 70, 100, 32, 64 // rows of 400 bytes: a multiple of 16, as TMA needs
	for _, dev := range devices(t, "tma_copy") {
		x := round(ir.F32, randn(r, m*n))
		out := poison(m * n)
		err := k.Run(dev, [3]int{cdiv(m, bm), cdiv(n, bn), 1}, tle.CompileOptions{Defines: map[string]string{"BM": "32", "BN": "64"}},
			map[string]any{"x": &tle.Tensor{Shape: []int{m, n}, Data: x}, "out": out, "M": m, "N": n})
		require.NoError(t, err, dev.Name())
		want := make([]float64, m*n)
		for i, v := range x {
			want[i] = v + 1
		}
		require.Equal(t, round(ir.F32, want), out.Data, dev.Name())
	}
}

// TestTMARoundtrip loads bf16 tiles through one descriptor and stores 2x+1
// through another (clipped at the edges), with a [64, 128] block (rows of
// 256 bytes) and a [512, 32] block (two TMA boxes of 256 rows per copy).
func TestTMARoundtrip(t *testing.T) {
	k := kernel(t, "tma_roundtrip.tle", "tma_roundtrip")
	r := rand.New(rand.NewPCG(15, 16))
	const m, n = 600, 200 // rows of 400 bytes
	for _, blk := range [][2]int{{64, 128}, {512, 32}} {
		defs := map[string]string{"BM": itoa(blk[0]), "BN": itoa(blk[1])}
		for _, dev := range devices(t, "tma_roundtrip") {
			if blk[0] != 64 && strings.HasSuffix(dev.Name(), "running given PTX") {
				continue // tools/build-ptx.sh builds the [64, 128] binding only
			}
			x := round(ir.BF16, randn(r, m*n))
			y := poison(m * n)
			err := k.Run(dev, [3]int{cdiv(m, blk[0]), cdiv(n, blk[1]), 1}, tle.CompileOptions{Defines: defs},
				map[string]any{"x": &tle.Tensor{Shape: []int{m, n}, Data: x}, "y": &tle.Tensor{Shape: []int{m, n}, Data: y.Data}})
			require.NoError(t, err, dev.Name())
			want := make([]float64, m*n)
			for i, v := range x {
				want[i] = ir.BF16.Round(2*v + 1)
			}
			require.Equal(t, want, y.Data, "%s %v", dev.Name(), blk)
		}
	}
}

func itoa(x int) string { return strconv.Itoa(x) }

// TestTMAPTX checks the TMA kernels' code with llc-19, as CI does: the map
// is a 128-byte .param aligned to 64 and annotated grid_constant, loads are
// cp.async.bulk.tensor completing on an mbarrier, stores bulk groups after a
// proxy fence, and a [512, 32] block is two boxes per copy.
func TestTMAPTX(t *testing.T) {
	tletest.NeedLLC(t)
	instr := tletest.PTXLine
	load := `cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`
	store := `cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`

	b, err := kernel(t, "tma_copy.tle", "tma_copy").Compile(tle.CompileOptions{Defines: map[string]string{"BM": "32", "BN": "64"}}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Regexp(t, `\.param \.align 64 \.b8 tma_copy_param_0\[128\]`, b.PTX)
	require.Regexp(t, `cvta\.param\.u64\s`, b.PTX)
	require.Len(t, instr(load).FindAllString(b.PTX, -1), 1)
	require.Regexp(t, instr(`mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %st, \[%r\d+\], %r\d+;`), b.PTX)
	require.Regexp(t, instr(`mbarrier\.try_wait\.parity\.shared::cta\.b64\s`), b.PTX)
	require.Regexp(t, `define void @tma_copy\(\[128 x i8\]\* byval\(\[128 x i8\]\) align 64 %x,`, b.LLVMIR)
	gc := regexp.MustCompile(`(?m)^!\d+ = !\{void \(.*\)\* @tma_copy, !"grid_constant", (!\d+)\}$`).FindStringSubmatch(b.LLVMIR)
	require.NotNil(t, gc, "no grid_constant annotation")
	require.Contains(t, b.LLVMIR, "\n"+gc[1]+" = !{i32 1}\n", "grid_constant must name parameter 1")
	require.Equal(t, "f32", b.Descs[0].DType)
	require.Equal(t, []int{32, 64}, b.Descs[0].Box)
	require.Equal(t, 0, b.Descs[0].Swizzle)

	for _, c := range []struct {
		bm, bn, boxes int
	}{{64, 128, 1}, {512, 32, 2}} {
		b, err := kernel(t, "tma_roundtrip.tle", "tma_roundtrip").Compile(tle.CompileOptions{Defines: map[string]string{"BM": itoa(c.bm), "BN": itoa(c.bn)}}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		require.Len(t, instr(load).FindAllString(b.PTX, -1), c.boxes)
		require.Len(t, instr(store).FindAllString(b.PTX, -1), c.boxes)
		require.Regexp(t, instr(`fence\.proxy\.async\.shared::cta;`), b.PTX)
		require.Regexp(t, instr(`cp\.async\.bulk\.commit_group;`), b.PTX)
		require.Regexp(t, instr(`cp\.async\.bulk\.wait_group\.read 0;`), b.PTX)
		require.Len(t, b.Descs, 2)
		require.Equal(t, []int{min(c.bm, 256), c.bn}, b.Descs[1].Box)
	}
}
