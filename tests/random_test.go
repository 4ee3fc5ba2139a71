package tests

// The random-number builtins (Triton's triton.language.random): randint,
// randint4x and rand agree bit for bit with internal/philoxref, a plain Go
// Philox4x32/4x64 checked against Random123's known-answer vectors, with
// Triton's seed and offset mapping; randn within a bound of the float64
// Box-Muller of the same uniforms.

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/internal/philoxref"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

const randomSrc = `
kernel randint_32(o *i32, y0 *u32, y1 *u32, y2 *u32, y3 *u32, u *f32, u4 *f32, seed i64, n i32, R const i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    off := load(o + offs, mask: m)
    a, b, c, d := randint4x(seed, off, n_rounds: R)
    store(y0 + offs, a, mask: m)
    store(y1 + offs, b, mask: m)
    store(y2 + offs, c, mask: m)
    store(y3 + offs, d, mask: m)
    store(u + offs, rand(seed, off, n_rounds: R), mask: m)
    _, _, _, u3 := rand4x(seed, off, n_rounds: R)
    store(u4 + offs, u3 + cast(randint(seed, off, n_rounds: R) - a, f32), mask: m)
}

kernel randint_64(o *i64, y0 *u64, y1 *u64, y2 *u64, y3 *u64, u *f32, seed i64, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    off := load(o + offs, mask: m)
    a, b, c, d := randint4x(seed, off)
    store(y0 + offs, a, mask: m)
    store(y1 + offs, b, mask: m)
    store(y2 + offs, c, mask: m)
    store(y3 + offs, d, mask: m)
    store(u + offs, rand(seed, off), mask: m)
}

kernel randn_k(o *i32, q *i64, y *f32, y4 *f32, z *f32, seed i64, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    off := load(o + offs, mask: m)
    store(y + offs, randn(seed, off), mask: m)
    a, b, c, d := randn4x(seed, off)
    store(y4 + 4 * offs, a, mask: m)
    store(y4 + 4 * offs + 1, b, mask: m)
    store(y4 + 4 * offs + 2, c, mask: m)
    store(y4 + 4 * offs + 3, d, mask: m)
    store(z + offs, randn(seed, load(q + offs, mask: m), n_rounds: 6), mask: m)
}

kernel seed_i32(y *u32, z *u32, seed i32) {
    offs := arange(0, 64)
    store(y + offs, randint(seed, offs))
    store(z + offs, randint(-5, offs) ^ randint(12345678901, offs + 7))
}
`

// randomOffsets is n offsets: the edges, then random words.
func randomOffsets(n int, r *rand.Rand) []uint64 {
	o := []uint64{0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}
	for len(o) < n {
		o = append(o, r.Uint64())
	}
	return o[:n]
}

func runRandom(t *testing.T, dev tle.Device, prog *tle.Program, kernel string, grid int, defines map[string]string, args map[string]any) {
	t.Helper()
	k, err := prog.Kernel(kernel)
	require.NoError(t, err)
	require.NoError(t, k.Run(dev, [3]int{grid, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defines}, args), "%s on %s", kernel, dev.Name())
}

// TestRandint32Interp: randint4x, randint, rand and rand4x of i32 offsets
// against the reference, for random seeds (some negative, some of 32 bits
// only) and 10, 7 and 1 rounds.
func TestRandint32Interp(t *testing.T) {
	testRandint32(t, tle.CPU())
}

func testRandint32(t *testing.T, dev tle.Device) {
	prog, err := tle.Parse("random.tle", []byte(randomSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 4))
	const n = 3000
	for trial, seed := range []int64{0, -1, 0x1234_5678_9abc_def0, int64(r.Uint64()), int64(r.Uint32()), -int64(r.Uint32())} {
		rounds := []int{10, 7, 1, 10, 10, 3}[trial]
		offs := make([]int32, n)
		for i, o := range randomOffsets(n, r) {
			offs[i] = int32(uint32(o))
		}
		ys := [4][]uint32{make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n)}
		u, u4 := make([]float32, n), make([]float32, n)
		runRandom(t, dev, prog, "randint_32", (n+1023)/1024, map[string]string{"R": strconv.Itoa(rounds)}, map[string]any{
			"o": offs, "y0": ys[0], "y1": ys[1], "y2": ys[2], "y3": ys[3], "u": u, "u4": u4, "seed": seed, "n": n})
		for i, o := range offs {
			want := philoxref.Randint4x32(seed, uint32(o), rounds)
			for w := range 4 {
				require.Equal(t, want[w], ys[w][i], "seed %#x offset %#x rounds %d word %d", seed, uint32(o), rounds, w)
			}
			require.Equal(t, math.Float32bits(philoxref.Uniform32(want[0])), math.Float32bits(u[i]), "rand seed %#x offset %#x", seed, uint32(o))
			require.Equal(t, math.Float32bits(philoxref.Uniform32(want[3])), math.Float32bits(u4[i]), "rand4x seed %#x offset %#x", seed, uint32(o))
			require.True(t, u[i] >= 0 && u[i] < 1)
		}
	}
}

// TestRandint64Interp: i64 offsets draw Philox4x64 with key (seed, 0).
func TestRandint64Interp(t *testing.T) {
	testRandint64(t, tle.CPU())
}

func testRandint64(t *testing.T, dev tle.Device) {
	prog, err := tle.Parse("random.tle", []byte(randomSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 64))
	const n = 2000
	for _, seed := range []int64{0, -1, int64(r.Uint64())} {
		offs := make([]int64, n)
		for i, o := range randomOffsets(n, r) {
			offs[i] = int64(o)
		}
		ys := [4][]uint64{make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]uint64, n)}
		u := make([]float32, n)
		runRandom(t, dev, prog, "randint_64", (n+1023)/1024, nil, map[string]any{
			"o": offs, "y0": ys[0], "y1": ys[1], "y2": ys[2], "y3": ys[3], "u": u, "seed": seed, "n": n})
		for i, o := range offs {
			want := philoxref.Randint4x64(seed, uint64(o), 10)
			for w := range 4 {
				require.Equal(t, want[w], ys[w][i], "seed %#x offset %#x word %d", seed, uint64(o), w)
			}
			require.Equal(t, math.Float32bits(philoxref.Uniform64(want[0])), math.Float32bits(u[i]), "rand seed %#x offset %#x", seed, uint64(o))
		}
	}
}

// TestRandomSeedWidening: an i32 seed sign-extends into the key's high
// word (Triton's seed.to(uint64)), as do untyped constant seeds; a seed
// beyond 32 bits keeps its high word.
func TestRandomSeedWidening(t *testing.T) {
	prog, err := tle.Parse("random.tle", []byte(randomSrc))
	require.NoError(t, err)
	for _, seed := range []int32{-7, 99} {
		y, z := make([]uint32, 64), make([]uint32, 64)
		runRandom(t, tle.CPU(), prog, "seed_i32", 1, nil, map[string]any{"y": y, "z": z, "seed": seed})
		for i := range 64 {
			require.Equal(t, philoxref.Randint4x32(int64(seed), uint32(i), 10)[0], y[i], "seed %d offset %d", seed, i)
			want := philoxref.Randint4x32(-5, uint32(i), 10)[0] ^ philoxref.Randint4x32(12345678901, uint32(i+7), 10)[0]
			require.Equal(t, want, z[i], "offset %d", i)
		}
	}
}

// randnRef is the float64 Box-Muller of the reference's uniforms for one
// offset: randn's value (of a 32-bit offset), randn4x's four, and randn's
// of the same offset as a 64-bit one with 6 rounds, with each one's radius
// r = sqrt(-2 log u1) (the error bounds scale with it).
func randnRef(seed int64, o int32) (n float64, n4 [4]float64, r4 [4]float64, n64, r64 float64) {
	w := philoxref.Randint4x32(seed, uint32(o), 10)
	u := [4]float32{philoxref.Uniform32(w[0]), philoxref.Uniform32(w[1]), philoxref.Uniform32(w[2]), philoxref.Uniform32(w[3])}
	n4[0], n4[1] = philoxref.Normal(u[0], u[1])
	n4[2], n4[3] = philoxref.Normal(u[2], u[3])
	radius := func(u1 float32) float64 { return math.Sqrt(-2 * math.Log(float64(max(float32(1e-7), u1)))) }
	r4 = [4]float64{radius(u[0]), radius(u[0]), radius(u[2]), radius(u[2])}
	w64 := philoxref.Randint4x64(seed, uint64(int64(o)), 6)
	u1, u2 := philoxref.Uniform64(w64[0]), philoxref.Uniform64(w64[1])
	n64, _ = philoxref.Normal(u1, u2)
	return n4[0], n4, r4, n64, radius(u1)
}

// testRandn runs randn and randn4x on random offsets (and randn of i64
// offsets) and returns the largest error of each value over its bound
// tol(want, r) (at most 1 passes).
func testRandn(t *testing.T, dev tle.Device, tol func(want, r float64) float64) float64 {
	prog, err := tle.Parse("random.tle", []byte(randomSrc))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(35, 7))
	const n = 20000
	worst := 0.0
	for _, seed := range []int64{0, int64(rng.Uint64()), -int64(rng.Uint32())} {
		offs, q := make([]int32, n), make([]int64, n)
		for i, o := range randomOffsets(n, rng) {
			offs[i] = int32(uint32(o))
			q[i] = int64(offs[i])
		}
		y, y4, z := make([]float32, n), make([]float32, 4*n), make([]float32, n)
		runRandom(t, dev, prog, "randn_k", (n+1023)/1024, nil, map[string]any{"o": offs, "q": q, "y": y, "y4": y4, "z": z, "seed": seed, "n": n})
		check := func(got float32, want, r float64, what string, o int32) {
			e := math.Abs(float64(got)-want) / tol(want, r)
			require.False(t, math.IsNaN(e), "%s seed %#x offset %#x: %v, want %v", what, seed, o, got, want)
			require.LessOrEqual(t, e, 1.0, "%s seed %#x offset %#x: %v, want %v", what, seed, o, got, want)
			worst = max(worst, e)
		}
		for i, o := range offs {
			want, w4, r4, w64, r64 := randnRef(seed, o)
			check(y[i], want, r4[0], "randn", o)
			for k := range 4 {
				check(y4[4*i+k], w4[k], r4[k], "randn4x", o)
			}
			check(z[i], w64, r64, "randn (i64 offset)", o)
		}
	}
	return worst
}

// RandnInterpRel bounds randn on the interpreter relative to the float64
// Box-Muller of the same f32 uniforms: log (0.5 ulp, halved by the square
// root), sqrt, cos or sin and the product each round to f32 once (0.5 ulp
// each of at most 2^-23 relative): 1.75 * 2^-23, rounded up to 2^-22.
const RandnInterpRel = 0x1p-22

// TestRandnInterp: randn and randn4x within RandnInterpRel * |want| of the
// float64 formula on 4 * 10^5 values.
func TestRandnInterp(t *testing.T) {
	worst := testRandn(t, tle.CPU(), func(want, _ float64) float64 { return RandnInterpRel*math.Abs(want) + 0x1p-149 })
	t.Logf("largest error: %.3f of the bound", worst)
}

// TestGPURandn: on the GPU log is lg2.approx.f32 times ln 2 (an absolute
// error of at most about 2^-22 * ln 2 in log u1, so 2^-21 * ln 2 in r^2 and
// that over 2r in r), the rest as on the interpreter; the bound adds the
// two, with room.
func TestGPURandn(t *testing.T) {
	g := tletest.GPU(t)
	worst := testRandn(t, g, func(want, r float64) float64 {
		return 0x1p-20*math.Abs(want) + math.Min(0x1p-20/r, math.Sqrt(0x1p-20))
	})
	t.Logf("largest error: %.3f of the bound", worst)
}

// TestGPURandint: the GPU draws the reference's words and uniforms bit for
// bit, for 32- and 64-bit offsets.
func TestGPURandint(t *testing.T) {
	g := tletest.GPU(t)
	testRandint32(t, g)
	testRandint64(t, g)
}
