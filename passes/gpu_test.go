package passes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes/internal/filecheck"
)

// TestGPUPassFilesNeedTheirPass: every GPU row has .tir tests, and their
// CHECK lines fail when the pass is left out of the file's RUN list, so
// they test the pass and not the rows around it.
func TestGPUPassFilesNeedTheirPass(t *testing.T) {
	for _, p := range Table {
		if p.Phase != PhaseGPU {
			continue
		}
		files, err := filepath.Glob(filepath.Join("testdata", p.Name, "*.tir"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "GPU pass %s has no testdata/%s/*.tir", p.Name, p.Name)
		for _, file := range files {
			src, names := readTIR(t, file, p.Name)
			var list []Pass
			for _, n := range names {
				if n = strings.TrimSpace(n); n != p.Name {
					list = append(list, *Lookup(n))
				}
			}
			m, err := ir.Parse(file, src)
			require.NoError(t, err)
			require.NoError(t, (&Pipeline{Passes: list, Options: Options{VerifyEach: true}}).Run(m), file)
			require.Error(t, filecheck.Check(ir.Print(m), string(src)), "%s: the checks pass without %s", file, p.Name)
		}
	}
}

// passLog runs opts on the sample and returns the passes that ran.
func passLog(t *testing.T, m *ir.Module, opts Options) ([]string, error) {
	var log bytes.Buffer
	opts.Log = &log
	err := Run(m, opts)
	return strings.Fields(strings.ReplaceAll(log.String(), "pass ", "")), err
}

func TestRunSelectsRowsByTarget(t *testing.T) {
	var tile, all []string
	for _, p := range Table {
		if p.Phase == PhaseTile {
			tile = append(tile, p.Name)
		}
		all = append(all, p.Name)
	}
	ran, err := passLog(t, parseSample(t), Options{VerifyEach: true})
	require.NoError(t, err)
	require.Equal(t, tile, ran, "the interpreter runs the target-independent rows only")

	ran, err = passLog(t, parseSample(t), Options{VerifyEach: true, GPU: &GPUOptions{}})
	require.NoError(t, err)
	require.Equal(t, all, ran)

	m := parseSample(t)
	require.NoError(t, Run(m, Options{}))
	ran, err = passLog(t, m, Options{VerifyEach: true, From: PhaseGPU, GPU: &GPUOptions{}})
	require.NoError(t, err)
	require.Equal(t, all[len(tile):], ran)

	_, err = passLog(t, parseSample(t), Options{From: PhaseGPU})
	require.ErrorContains(t, err, "needs GPU options")

	// the interpreter accepts a GPU pass's name for --dump-after (a GPU
	// compile runs the same options) and dumps nothing
	dir := t.TempDir()
	require.NoError(t, Run(parseSample(t), Options{DumpAfter: "layouts", DumpDir: dir}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestOrderConstraintsGPU(t *testing.T) {
	// a target-independent row after a GPU row is refused
	bad := append(slices.Clone(Table), Pass{Name: "late", Run: DCE})
	require.ErrorContains(t, CheckOrder(bad, nil), `tile pass "late" comes after GPU pass "smem-alloc"`)
	// and so is smem-alloc before a pass that adds buffers
	swapped := slices.Clone(Table)
	i, j := indexOf(swapped, "async-loads"), indexOf(swapped, "smem-alloc")
	swapped[i], swapped[j] = swapped[j], swapped[i]
	require.ErrorContains(t, CheckOrder(swapped, Constraints), "async-loads must run before smem-alloc (the staging buffers async-loads adds need offsets)")
	for _, p := range Table {
		if p.Phase == PhaseGPU && p.Name != "dot-wgmma" {
			found := false
			for _, c := range Constraints {
				found = found || c.After == p.Name
			}
			require.True(t, found, "GPU pass %s has no order constraint", p.Name)
		}
	}
}

// gpuSample is the dot-wgmma test's module: a kernel marked dot_wgmma.
func gpuSample(t *testing.T) *ir.Module {
	src, err := os.ReadFile("testdata/dot-wgmma/basic.tir")
	require.NoError(t, err)
	m, err := ir.Parse("basic.tir", src)
	require.NoError(t, err)
	return &ir.Module{File: m.File, Funcs: m.Funcs[:1]}
}

// The GPU rows dump and verify like the others; their dumps are numbered by
// their place in Table whether the run starts at the tile rows or at the GPU
// rows, and each parses back, layouts included, and verifies.
func TestDumpAfterGPU(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Run(gpuSample(t), Options{VerifyEach: true, GPU: &GPUOptions{}, DumpAfter: "all", DumpDir: dir}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	require.Equal(t, []string{"marked_00__input.tir", "marked_01__inline.tir", "marked_02__constfold.tir", "marked_03__cse.tir",
		"marked_04__dce.tir", "marked_05__elide-transpose.tir", "marked_06__dot-wgmma.tir", "marked_07__layouts.tir",
		"marked_08__pipeline.tir", "marked_09__async-loads.tir", "marked_10__smem-alloc.tir"}, names)
	for _, n := range names {
		src, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		m, err := ir.Parse(n, src)
		require.NoError(t, err, n)
		require.NoError(t, ir.Verify(m), n)
		require.Equal(t, string(src), ir.Print(m), n)
	}
	txt, err := os.ReadFile(filepath.Join(dir, "marked_07__layouts.tir"))
	require.NoError(t, err)
	require.Contains(t, string(txt), "#mmav3<[4,1]>")

	dir = t.TempDir()
	require.NoError(t, Run(gpuSample(t), Options{From: PhaseGPU, GPU: &GPUOptions{}, DumpAfter: "all", DumpDir: dir}))
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 5, "no input dump when the run starts at the GPU rows")
	require.Equal(t, "marked_06__dot-wgmma.tir", entries[0].Name())
}

func TestGPUOptions(t *testing.T) {
	// DotMMASync keeps the dot of a kernel marked dot_wgmma
	m := gpuSample(t)
	require.NoError(t, Run(m, Options{From: PhaseGPU, GPU: &GPUOptions{DotMMASync: true}, VerifyEach: true}))
	require.Contains(t, ir.Print(m), " = dot(")
	require.NotContains(t, ir.Print(m), "wgmma(")

	// Stages 1 turns the pipeliner off; the default pipelines
	src, err := os.ReadFile("testdata/pipeline/mma_ring.tir")
	require.NoError(t, err)
	for stages, want := range map[int]bool{1: false, 0: true} {
		m, err := ir.Parse("mma_ring.tir", src)
		require.NoError(t, err)
		p := &Pipeline{Passes: []Pass{*Lookup("pipeline")}, Options: Options{GPU: &GPUOptions{Stages: stages}, VerifyEach: true}}
		require.NoError(t, p.Run(m))
		require.Equal(t, want, strings.Contains(ir.Print(m), "async_copy("), "stages %d", stages)
	}

	// NumWarps is for a kernel without a num_warps attribute
	m = gpuSample(t)
	delete(m.Funcs[0].Attrs, gpu.AttrNumWarps)
	require.NoError(t, Run(m, Options{From: PhaseGPU, GPU: &GPUOptions{NumWarps: 8}}))
	require.Equal(t, int64(8), m.Funcs[0].Attrs.Int(gpu.AttrNumWarps, 0))
}

// A GPU row's error reads as the pass wrote it (it names the function), and
// the pass is known to errors.As.
func TestGPUPassErrors(t *testing.T) {
	m := gpuSample(t)
	m.Funcs[0].Attrs[gpu.AttrNumWarps] = int64(3)
	err := Run(m, Options{From: PhaseGPU, GPU: &GPUOptions{}})
	require.EqualError(t, err, "marked: num_warps 3 is not a power of two")
	var pe *PassError
	require.True(t, errors.As(err, &pe))
	require.Equal(t, "layouts", pe.Pass)
}
