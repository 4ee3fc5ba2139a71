package tle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tuneSrc = `
kernel scale(x *f32, out *f32, n i32, B const i32, BAD const i32) {
    offs := program_id(0)*B + arange(0, B)
    m := offs < n
    v := load(x + offs, mask: m, other: 0)
    store(out + offs, v * 2.0 + cast(BAD, f32), mask: m)
}

tune scale {
    key(n: pow2)
    grid(cdiv(n, B))
    config wrong(B: 64, BAD: 1)
    config huge(B: 2097152)
    space(B: [32, 64, 128, 256])
    where B != 256
    default(B: 128, BAD: 0)
}
`

// fakeBench is the tests' timing engine: each configuration's median is
// times[name] (ms), its samples spread by spread around it; calls records
// the names timed at each call.
type fakeBench struct {
	mu     sync.Mutex
	times  map[string]float64
	spread float64
	calls  [][]string
}

func (f *fakeBench) bench(_ context.Context, o BenchOptions, runs []KernelRun) ([]Timing, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	out := make([]Timing, len(runs))
	for i, r := range runs {
		names = append(names, r.Name)
		m := f.times[r.Name]
		if m == 0 {
			m = 1
		}
		var s []float64
		seed := uint64(len(r.Name))*0x9e3779b97f4a7c15 + uint64(len(f.calls)+1)
		for j := 0; j < o.Reps; j++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			u := float64(seed>>11)/float64(1<<53) - 0.5 // noise of each run
			s = append(s, m*(1+f.spread*u))
		}
		out[i] = Timing{Name: r.Name, MedianMs: m, MinMs: m * (1 - f.spread), LoMs: m * (1 - f.spread/2), HiMs: m * (1 + f.spread/2), Reps: o.Reps, Samples: s, Coverage: 0.95}
	}
	if o.Reps > 3 { // the probe is not a timing
		f.calls = append(f.calls, names)
	}
	return out, nil
}

func tuneKernel(t *testing.T) *Kernel {
	t.Helper()
	p, err := Parse("scale.tle", []byte(tuneSrc))
	require.NoError(t, err)
	k, err := p.Kernel("scale")
	require.NoError(t, err)
	return k
}

func tuneArgs(n int) map[string]any {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	return map[string]any{"x": x, "out": make([]float32, n), "n": n}
}

func fakeEnv(f *fakeBench) tuneEnv {
	return tuneEnv{gpu: true, device: "fake H200", dev: CPU(), bench: f.bench,
		prune: func(k *Kernel, o CompileOptions, g GPUOptions) error { return k.CheckTarget(o, g) }}
}

func rowOf(t *testing.T, res *TuneResult, name string) TuneRow {
	for _, r := range res.Rows {
		if r.Config.Name == name {
			return r
		}
	}
	t.Fatalf("no row %s", name)
	return TuneRow{}
}

func TestTuneChoosesPrunesRejects(t *testing.T) {
	k := tuneKernel(t)
	f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
	res, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, "B=32", res.Winner.Name)
	assert.Equal(t, "tuned", res.Source)
	assert.Equal(t, "n=1024", res.Bucket)
	assert.True(t, res.Distinguishable)
	// pruned: the where constraint, the tile limit (a build), the mismatch
	assert.Contains(t, rowOf(t, res, "B=256").Pruned, "where B != 256 is false")
	assert.Contains(t, rowOf(t, res, "huge").Pruned, "build:")
	assert.Contains(t, rowOf(t, res, "wrong").Pruned, "rejected: output out differs from the default's")
	assert.Equal(t, [3]int{32, 1, 1}, rowOf(t, res, "B=32").Grid)
	assert.True(t, rowOf(t, res, "B=32").IsWinner)
}

func TestTuneNearTieRetimed(t *testing.T) {
	k := tuneKernel(t)
	f := &fakeBench{times: map[string]float64{"default": 1.0, "B=32": 1.001, "B=64": 3}, spread: 0.05}
	res, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, f.calls, 2, "one timing, then the near ties")
	assert.ElementsMatch(t, []string{"default", "B=32"}, f.calls[1])
	assert.True(t, rowOf(t, res, "B=32").Retimed)
	assert.False(t, res.Distinguishable)
	assert.Contains(t, res.Note, "not distinguishable")
}

func TestTuneCache(t *testing.T) {
	k := tuneKernel(t)
	dir := t.TempDir()
	f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
	o := TuneOptions{CacheDir: dir}
	_, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), o)
	require.NoError(t, err)
	require.Len(t, f.calls, 1)

	// hit: nothing timed; another n of the bucket too
	res, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(900), o)
	require.NoError(t, err)
	assert.Equal(t, "cached", res.Source)
	assert.Equal(t, "B=32", res.Winner.Name)
	require.Len(t, f.calls, 1)

	// one configuration added: only it is timed
	s, _ := k.TuneSpace()
	s.Configs = append(s.Configs, TuneConfig{Name: "new", Vals: map[string]int64{"B": 16, "BAD": 0}})
	f.times["new"] = 0.5
	o.Space = s
	res, err = k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), o)
	require.NoError(t, err)
	require.Len(t, f.calls, 2)
	assert.Equal(t, []string{"new"}, f.calls[1])
	assert.Equal(t, "new", res.Winner.Name)

	// a corrupt entry is timed again, alone (the choice made over it is
	// corrupt too: it is not taken)
	c := tuneCache{dir: dir, prefix: k.tunePrefix("n=1024", "fake H200", CompileOptions{}, GPUOptions{})}
	require.NoError(t, os.WriteFile(c.path(s.Configs[0]), []byte("{not json"), 0o644))
	require.NoError(t, os.WriteFile(c.choicePath(), []byte(`{"space": "x"`), 0o644))
	_, err = k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), o)
	require.NoError(t, err)
	require.Len(t, f.calls, 3)
	assert.Equal(t, []string{"default"}, f.calls[2])

	// another compiler version sees none of it
	old := buildID
	buildID = func() string { return "another-compiler" }
	defer func() { buildID = old }()
	_, err = k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), o)
	require.NoError(t, err)
	require.Len(t, f.calls, 4)
	assert.Len(t, f.calls[3], 4)
}

// TestTuneCachedChoice: a second tuning of the bucket takes the cached
// choice, building and timing nothing, with the first's rows; another
// toolchain tunes again, and Retune does.
func TestTuneCachedChoice(t *testing.T) {
	k := tuneKernel(t)
	dir := t.TempDir()
	f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
	env := fakeEnv(f)
	builds := 0
	prune := env.prune
	env.prune = func(k *Kernel, o CompileOptions, g GPUOptions) error { builds++; return prune(k, o, g) }
	o := TuneOptions{CacheDir: dir}
	first, err := k.tune(context.Background(), env, tuneArgs(1000), o)
	require.NoError(t, err)
	require.Positive(t, builds)

	builds = 0
	res, err := k.tune(context.Background(), env, tuneArgs(1000), o)
	require.NoError(t, err)
	assert.Equal(t, "cached", res.Source)
	assert.Zero(t, builds, "a cached choice builds nothing")
	assert.Len(t, f.calls, 1, "and times nothing")
	assert.Equal(t, first.Winner.ID(), res.Winner.ID())
	require.Len(t, res.Rows, len(first.Rows))
	assert.True(t, rowOf(t, res, "B=32").IsWinner)
	assert.True(t, rowOf(t, res, "B=32").Cached)
	assert.Contains(t, rowOf(t, res, "B=256").Pruned, "where B != 256 is false")

	// another toolchain: its own timings
	o.GPU.Toolchain = "llc"
	res, err = k.tune(context.Background(), env, tuneArgs(1000), o)
	require.NoError(t, err)
	assert.Positive(t, builds)
	assert.Equal(t, "tuned", res.Source)
	assert.Len(t, f.calls, 2)

	// Retune chooses again
	builds = 0
	o.Retune = true
	_, err = k.tune(context.Background(), env, tuneArgs(1000), o)
	require.NoError(t, err)
	assert.Positive(t, builds)
	assert.Len(t, f.calls, 3)
}

func TestTuneConcurrentWriters(t *testing.T) {
	k := tuneKernel(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
			_, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: dir})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	assert.Len(t, files, 4, "one entry a timed or rejected configuration")
	f := &fakeBench{}
	res, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: dir})
	require.NoError(t, err)
	assert.Equal(t, "cached", res.Source, "every entry is whole")
	assert.Empty(t, f.calls)
}

// TestTuneTwoProcesses runs the test binary twice at once (each child
// tunes one key into the same cache directory, TLE_TUNE_CHILD naming it),
// then reads the cache: every entry is whole and a third tuning times
// nothing. The cache has no lock between processes; entries are written
// atomically, so two writers of one configuration leave one valid file.
func TestTuneTwoProcesses(t *testing.T) {
	if dir := os.Getenv("TLE_TUNE_CHILD"); dir != "" {
		k := tuneKernel(t)
		f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
		_, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: dir})
		require.NoError(t, err)
		return
	}
	if testing.Short() {
		t.Skip("starts two processes")
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestTuneTwoProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TLE_TUNE_CHILD="+dir)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d:\n%s", i, outs[i])
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	assert.Len(t, files, 4, "one entry a timed or rejected configuration")
	f := &fakeBench{}
	res, err := tuneKernel(t).tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: dir})
	require.NoError(t, err)
	assert.Equal(t, "cached", res.Source, "every entry is whole")
	assert.Empty(t, f.calls)
}

func TestTuneExportImport(t *testing.T) {
	k := tuneKernel(t)
	f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
	res, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: t.TempDir()})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "choices.json")
	require.NoError(t, ExportTuning(path, k, res))
	imported.Lock()
	saved := imported.choices
	imported.choices, imported.envDone = nil, true
	imported.Unlock()
	defer func() { imported.Lock(); imported.choices = saved; imported.Unlock() }()
	require.NoError(t, ImportTuning(path))
	f2 := &fakeBench{}
	res2, err := k.tune(context.Background(), fakeEnv(f2), tuneArgs(1000), TuneOptions{CacheDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, "imported", res2.Source)
	assert.Equal(t, "B=32", res2.Winner.Name)
	assert.Empty(t, f2.calls, "an imported choice tunes nothing")
}

func TestTuneInterpreterDefault(t *testing.T) {
	k := tuneKernel(t)
	res, err := k.Tune(context.Background(), CPU(), tuneArgs(1000), TuneOptions{CacheDir: t.TempDir()})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(res.Source, "default: the interpreter"), res.Source)
	assert.Equal(t, "default", res.Winner.Name)
	assert.Equal(t, map[string]string{"B": "128", "BAD": "0"}, res.Winner.Options(CompileOptions{}).Defines)
}

func TestTuneDryRun(t *testing.T) {
	k := tuneKernel(t)
	res, err := k.Tune(context.Background(), nil, map[string]any{"n": 5000}, TuneOptions{DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, "n=8192", res.Bucket)
	assert.Len(t, res.Rows, 6)
	assert.Contains(t, rowOf(t, res, "huge").Pruned, "build:")
}

func TestTuneBuckets(t *testing.T) {
	s := &TuneSpace{Keys: []TuneKey{{Name: "M", Rule: "pow2"}, {Name: "N", Rule: "mult", Mult: 64}, {Name: "K", Rule: "exact"}}}
	b, err := s.Bucket(map[string]any{"M": 1000, "N": int32(100), "K": int64(7)})
	require.NoError(t, err)
	assert.Equal(t, "M=1024,N=128,K=7", b)
	b, _ = s.Bucket(map[string]any{"M": 1024, "N": 128, "K": 7})
	assert.Equal(t, "M=1024,N=128,K=7", b)
	_, err = s.Bucket(map[string]any{"M": 1})
	assert.Error(t, err)
}

func TestTuneOff(t *testing.T) {
	k := tuneKernel(t)
	f := &fakeBench{}
	res, err := k.tune(context.Background(), fakeEnv(f), tuneArgs(1000), TuneOptions{CacheDir: t.TempDir(), Off: true})
	require.NoError(t, err)
	assert.Equal(t, "default: tuning is off", res.Source)
	assert.Equal(t, "default", res.Winner.Name)
	assert.Empty(t, f.calls)
}

func TestTunePruneTimeoutAndJobs(t *testing.T) {
	k := tuneKernel(t)
	f := &fakeBench{times: map[string]float64{"default": 3, "B=32": 1, "B=64": 2}, spread: 0.01}
	env := fakeEnv(f)
	var mu sync.Mutex
	running, most := 0, 0
	env.prune = func(k *Kernel, o CompileOptions, g GPUOptions) error {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		if o.Defines["B"] == "32" {
			time.Sleep(2 * time.Second)
		}
		return nil
	}
	res, err := k.tune(context.Background(), env, tuneArgs(1000), TuneOptions{CacheDir: t.TempDir(), Jobs: 2, CompileTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.Contains(t, rowOf(t, res, "B=32").Pruned, "build took longer than 100ms")
	assert.Equal(t, "B=64", res.Winner.Name)
	assert.LessOrEqual(t, most, 2, "at most Jobs builds at once")
}
