package nvptx

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var dumpDir = os.Getenv("TLE_DUMP_DIR") // when set, tests write .ll and .ptx there

// compileIR runs the layout passes and the backend.
func compileIR(t testing.TB, m *ir.Module, numWarps int) *Result {
	t.Helper()
	if err := Prepare(m, numWarps); err != nil {
		t.Fatalf("passes: %v", err)
	}
	res, err := EmitLLVM(m, Options{NumWarps: numWarps})
	if err != nil {
		t.Fatalf("EmitLLVM: %v", err)
	}
	return res
}

// llcOrSkip returns the llc toolchain, skipping the test when none is
// installed.
func llcOrSkip(t testing.TB) Toolchain {
	t.Helper()
	p, err := FindLLC()
	if err != nil {
		t.Skipf("no llc: %v", err)
	}
	return &LLC{Path: p}
}

func toPTX(t testing.TB, name string, res *Result) string {
	t.Helper()
	tc := llcOrSkip(t)
	ptx, err := tc.PTX(res.LLVMIR, "sm_90a")
	if dumpDir != "" {
		os.MkdirAll(dumpDir, 0o755)
		os.WriteFile(filepath.Join(dumpDir, name+".ll"), []byte(res.LLVMIR), 0o644)
		if err == nil {
			os.WriteFile(filepath.Join(dumpDir, name+".ptx"), []byte(ptx), 0o644)
		}
	}
	if err != nil {
		t.Fatalf("%v", err)
	}
	return ptx
}

// checkPTX asserts whole-instruction patterns (Go's test/codegen style): each
// want is a regexp that must match, each "!"-prefixed one must not.
func checkPTX(t *testing.T, ptx string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		neg := strings.HasPrefix(w, "!")
		re := regexp.MustCompile(strings.TrimPrefix(w, "!"))
		if got := re.MatchString(ptx); got == neg {
			if neg {
				t.Errorf("PTX has %q:\n%s", w[1:], firstMatchLines(ptx, re))
			} else {
				t.Errorf("PTX lacks %q", w)
			}
		}
	}
}

func firstMatchLines(s string, re *regexp.Regexp) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
			if len(out) > 5 {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func TestVectorAddPTX(t *testing.T) {
	res := compileIR(t, vectorAddIR(1024, false), 4)
	ptx := toPTX(t, "vector_add", res)
	checkPTX(t, ptx,
		`\.entry vector_add`,
		`\.maxntid 128, 1, 1`,
		`ld\.global\.v4\.f32`,
		`st\.global\.v4\.f32`,
		`add(\.rn)?\.f32`,
		`mov\.u32\s+%r\d+, %ctaid\.x`,
	)
}

func TestVectorAddDiv16PTX(t *testing.T) {
	res := compileIR(t, vectorAddIR(1024, true), 4)
	ptx := toPTX(t, "vector_add_div16", res)
	// the mask is constant over each 4-element group: no scalar fallback
	checkPTX(t, ptx, `ld\.global\.v4\.f32`, `st\.global\.v4\.f32`, `!ld\.global\.f32`)
}

func TestSoftmaxPTX(t *testing.T) {
	res := compileIR(t, softmaxIR(8192, 16), 16)
	ptx := toPTX(t, "softmax", res)
	checkPTX(t, ptx,
		`\.maxntid 512, 1, 1`,
		`ld\.global\.v4\.f32`,
		`st\.global\.v4\.f32`,
		`ex2\.approx\.ftz\.f32`,
		`shfl\.sync\.bfly\.b32`,
		`max\.f32`,
		`bar\.sync\s+0`,
		`\.extern \.shared \.align 16 \.b8 global_smem\[\]`,
	)
}

func TestLayerNormPTX(t *testing.T) {
	res := compileIR(t, layerNormIR(1024), 8)
	ptx := toPTX(t, "layer_norm", res)
	checkPTX(t, ptx, `ld\.global\.v4\.f32`, `st\.global\.v4\.f32`, `rsqrt\.approx\.f32`, `shfl\.sync\.bfly\.b32`)
}

func TestMatmulPTX(t *testing.T) {
	res := compileIR(t, matmulIR(128, 128, 32, 8, 8, ir.BF16), 8)
	ptx := toPTX(t, "matmul", res)
	checkPTX(t, ptx,
		`mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32`,
		`ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`,
		`ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`,
		`cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, %r\d+;`,
		`cp\.async\.wait_group 1;`,
		// the bf16 results are packed two per conversion
		`cvt\.rn\.bf16x2\.f32 %r\d+, %f\d+, %f\d+;`,
		`!cvt\.rn\.bf16\.f32`,
	)
}

func TestMatmulUnpipelinedPTX(t *testing.T) {
	m := matmulIR(128, 128, 32, 8, 8, ir.BF16)
	m.Funcs[0].Attrs[gpu.AttrPipelineStages] = int64(1)
	ptx := toPTX(t, "matmul_nopipe", compileIR(t, m, 8))
	checkPTX(t, ptx, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32`,
		`ld\.global\.v4\.b32`, `st\.shared\.v4\.[bu]32`, `ldmatrix`, `!cp\.async`)
}

// BenchmarkMatmulToLLVM measures the Go part of compiling the matmul: layout
// passes, shared-memory allocation and LLVM IR text (goal: well under 20 ms).
func BenchmarkMatmulToLLVM(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := matmulIR(128, 128, 32, 8, 8, ir.BF16)
		if err := Prepare(m, 8); err != nil {
			b.Fatal(err)
		}
		if _, err := EmitLLVM(m, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSoftmaxToLLVM(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := softmaxIR(8192, 16)
		if err := Prepare(m, 16); err != nil {
			b.Fatal(err)
		}
		if _, err := EmitLLVM(m, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReduce2DPTX(t *testing.T) {
	ptx := toPTX(t, "reduce2d", compileIR(t, reduce2dIR(64, 128, 4), 4))
	checkPTX(t, ptx, `shfl\.sync\.bfly\.b32`, `max\.f32`, `bar\.sync`)
}

func TestCumsumPTX(t *testing.T) {
	ptx := toPTX(t, "cumsum", compileIR(t, cumsumIR(1024, 4), 4))
	checkPTX(t, ptx, `shfl\.sync\.up\.b32`, `shfl\.sync\.down\.b32`, `shfl\.sync\.idx\.b32`)
}

// TestCastsPTX: the f32 -> bf16 -> f32 round trip takes the packed
// conversion and unpacks its halves (no cvt.rn.bf16.f32 per element).
func TestCastsPTX(t *testing.T) {
	ptx := toPTX(t, "casts", compileIR(t, castsIR(512), 4))
	if strings.Contains(ptx, "cvt.rn.bf16.f32 ") {
		t.Error("a bf16 round trip converts element by element")
	}
	checkPTX(t, ptx, `cvt\.rn\.bf16x2\.f32`, `cvt\.rn\.f16\.f32`, `cvt\.rn\.satfinite\.e4m3x2\.f32`,
		`cvt\.rn\.satfinite\.e5m2x2\.f32`, `cvt\.rn\.f16x2\.e4m3x2`, `cvt\.rzi\.s32\.f32`)
}

func TestMathPTX(t *testing.T) {
	m, _ := mathIR(512)
	ptx := toPTX(t, "mathfn", compileIR(t, m, 4))
	checkPTX(t, ptx, `ex2\.approx\.ftz\.f32`, `lg2\.approx\.f32`, `sqrt\.rn\.f32`, `rsqrt\.approx\.f32`,
		`tanh\.approx\.f32`, `abs\.f32`, `min\.f32`, `max\.f32`, `rcp\.approx\.ftz\.f32`)
	if strings.Contains(ptx, "div.full.f32") {
		t.Error("sigmoid divides (one rcp.approx.ftz.f32 of 1 + e^-x is enough)")
	}
}

func TestTransPTX(t *testing.T) {
	toPTX(t, "transpose", compileIR(t, transIR(64, 32), 4))
}

func TestAtomicsPTX(t *testing.T) {
	ptx := toPTX(t, "atomics", compileIR(t, atomicIR(), 4))
	checkPTX(t, ptx, `atom\.global\.add\.f32`, `atom\.global\.max\.s32`)
}

func TestAttentionPTX(t *testing.T) {
	ptx := toPTX(t, "attention", compileIR(t, attentionIR(64, 64, 64, 4, 0.125), 4))
	// P becomes the second product's a operand in registers, packed by
	// cvt.rn.f16x2.f32
	checkPTX(t, ptx, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32`, `ldmatrix`, `shfl\.sync\.bfly\.b32`,
		`cvt\.rn\.f16x2\.f32 %r\d+, %f\d+, %f\d+;`)
}

// TestDumpPerfVariants writes the PTX of the benchmark variants the GPU
// tests time (only with TLE_DUMP_DIR set).
func TestDumpPerfVariants(t *testing.T) {
	if dumpDir == "" {
		t.Skip("TLE_DUMP_DIR not set")
	}
	for _, blk := range []int{1024, 2048, 4096} {
		for _, nw := range []int{4, 8} {
			toPTX(t, fmt.Sprintf("vector_add_%d_%d", blk, nw), compileIR(t, vectorAddIR(blk, true), nw))
		}
	}
	for _, c := range softmaxConfigs {
		m := softmaxIR(8192, c[0])
		m.Funcs[0].Attrs[AttrMinCTAsPerSM] = int64(c[1])
		toPTX(t, fmt.Sprintf("softmax_%d_m%d", c[0], c[1]), compileIR(t, m, c[0]))
	}
	for _, c := range matmulConfigs {
		m := matmulIR(c.bm, c.bn, c.bk, 8, c.warps, ir.BF16)
		m.Funcs[0].Attrs[gpu.AttrPipelineStages] = int64(c.stages)
		toPTX(t, c.name(), compileIR(t, m, c.warps))
	}
}

// softmaxConfigs: {warps, min CTAs per SM}
var softmaxConfigs = [][2]int{{8, 0}, {16, 0}, {8, 8}, {16, 4}, {4, 0}}

type matmulConfig struct{ bm, bn, bk, stages, warps int }

func (c matmulConfig) name() string {
	return fmt.Sprintf("matmul_%dx%dx%d_s%d_w%d", c.bm, c.bn, c.bk, c.stages, c.warps)
}

var matmulConfigs = []matmulConfig{
	{128, 128, 32, 1, 8}, {128, 128, 32, 3, 8}, {128, 128, 32, 4, 8}, {128, 128, 64, 3, 8},
	{128, 256, 32, 3, 8}, {128, 256, 64, 3, 8}, {256, 128, 32, 3, 8}, {128, 128, 32, 3, 4},
}

// TestGoldenLLVM compares the LLVM IR of small kernels with
// testdata/golden/*.ll (regenerate with `go test ./backend/nvptx -update`).
func TestGoldenLLVM(t *testing.T) {
	cases := []struct {
		name string
		m    func() *ir.Module
		nw   int
	}{
		{"vector_add_256", func() *ir.Module { return vectorAddIR(256, true) }, 2},
		{"softmax_512", func() *ir.Module { return softmaxIR(512, 4) }, 4},
		{"reduce2d_16x64", func() *ir.Module { return reduce2dIR(16, 64, 2) }, 2},
		{"matmul_32x32x16", func() *ir.Module { return matmulIR(32, 32, 16, 1, 1, ir.F16) }, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := compileIR(t, c.m(), c.nw).LLVMIR
			path := filepath.Join("testdata", "golden", c.name+".ll")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("LLVM IR differs from %s (run go test -update and review the diff)", path)
			}
		})
	}
}

func TestMiscPTX(t *testing.T) {
	ptx := toPTX(t, "misc", compileIR(t, miscIR(), 4))
	checkPTX(t, ptx, `ld\.shared\.f32`, `st\.shared\.v4\.f32|st\.shared\.f32`, `call\.uni \(retval0\),\s*vprintf`, `trap;`)
}

func TestMatmulTutorialPTX(t *testing.T) {
	ptx := toPTX(t, "matmul_tutorial", compileIR(t, matmulTutorialIR(128, 128, 32, 4), 4))
	checkPTX(t, ptx, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32`, `cp\.async\.cg\.shared\.global`,
		`cp\.async\.wait_group 1;`, `ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`, `!ld\.global`)
}
