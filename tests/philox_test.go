package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/internal/philoxref"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// philoxSrc calls Triton's random pieces themselves: philox on four
// counters of 32 and of 64 bits (a scalar counter broadcast), its words to
// uniforms, and two uniforms to normals.
const philoxSrc = `
kernel ph(c0 *u32, c1 *i32, c3 *u32, w *u32, d0 *u64, d2 *i64, w64 *u64, u *f32, u64f *f32, nrm *f32, seed i64, k i32) {
    o := arange(0, 256)
    a, b, c, d := philox(seed, load(c0 + o), load(c1 + o), k, load(c3 + o))
    store(w + o, a)
    store(w + 256 + o, b)
    store(w + 512 + o, c)
    store(w + 768 + o, d)
    e, f, g, h := philox(seed, load(d0 + o), cast(7, u64), load(d2 + o), cast(0, i64), n_rounds: 6)
    store(w64 + o, e)
    store(w64 + 256 + o, f)
    store(w64 + 512 + o, g)
    store(w64 + 768 + o, h)
    store(u + o, uint_to_uniform_float(a))
    store(u + 256 + o, uint_to_uniform_float(load(c1 + o)))
    store(u64f + o, uint_to_uniform_float(e))
    n1, n2 := pair_uniform_to_normal(uint_to_uniform_float(a), uint_to_uniform_float(b))
    store(nrm + o, n1)
    store(nrm + 256 + o, n2)
}
`

func checkPhilox(t *testing.T, dev tle.Device, tol func(want, r float64) float64) {
	prog, err := tle.Parse("philox.tle", []byte(philoxSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("ph")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 11))
	const n = 256
	c0, c1, c3 := make([]uint32, n), make([]int32, n), make([]uint32, n)
	d0, d2 := make([]uint64, n), make([]int64, n)
	for i := range n {
		c0[i], c1[i], c3[i] = r.Uint32(), int32(r.Uint32()), r.Uint32()
		d0[i], d2[i] = r.Uint64(), int64(r.Uint64())
	}
	for _, seed := range []int64{int64(r.Uint64()), -int64(r.Uint32())} {
		kc := int32(r.Uint32())
		w, w64 := make([]uint32, 4*n), make([]uint64, 4*n)
		u, u64f, nrm := make([]float32, 2*n), make([]float32, n), make([]float32, 2*n)
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{},
			map[string]any{"c0": c0, "c1": c1, "c3": c3, "w": w, "d0": d0, "d2": d2, "w64": w64, "u": u, "u64f": u64f, "nrm": nrm, "seed": seed, "k": kc}))
		s := uint64(seed)
		for i := range n {
			want := philoxref.Philox4x32([4]uint32{c0[i], uint32(c1[i]), uint32(kc), c3[i]}, [2]uint32{uint32(s), uint32(s >> 32)}, 10)
			for j := range 4 {
				require.Equal(t, want[j], w[j*n+i], "philox 4x32 word %d, element %d", j, i)
			}
			want64 := philoxref.Philox4x64([4]uint64{d0[i], 7, uint64(d2[i]), 0}, [2]uint64{s, 0}, 6)
			for j := range 4 {
				require.Equal(t, want64[j], w64[j*n+i], "philox 4x64 word %d, element %d", j, i)
			}
			u1, u2 := philoxref.Uniform32(want[0]), philoxref.Uniform32(want[1])
			require.Equal(t, math.Float32bits(u1), math.Float32bits(u[i]), "uint_to_uniform_float of a u32, element %d", i)
			require.Equal(t, math.Float32bits(philoxref.Uniform32(uint32(c1[i]))), math.Float32bits(u[n+i]), "uint_to_uniform_float of an i32, element %d", i)
			require.Equal(t, math.Float32bits(philoxref.Uniform64(want64[0])), math.Float32bits(u64f[i]), "uint_to_uniform_float of a u64, element %d", i)
			n1, n2 := philoxref.Normal(u1, u2)
			r := math.Sqrt(-2 * math.Log(float64(max(float32(1e-7), u1))))
			require.InDelta(t, n1, float64(nrm[i]), tol(n1, r), "pair_uniform_to_normal first, element %d", i)
			require.InDelta(t, n2, float64(nrm[n+i]), tol(n2, r), "pair_uniform_to_normal second, element %d", i)
		}
	}
}

// TestPhiloxInterp: philox is Random123's Philox (internal/philoxref) bit
// for bit, uint_to_uniform_float Triton's scaling bit for bit, and
// pair_uniform_to_normal within randn's bound of the float64 formula.
func TestPhiloxInterp(t *testing.T) {
	t.Parallel()
	checkPhilox(t, tle.CPU(), func(want, _ float64) float64 { return RandnInterpRel*math.Abs(want) + 0x1p-149 })
}

// TestGPUPhilox: the same on the GPU, the normals within TestGPURandn's
// bound (its log is lg2.approx).
func TestGPUPhilox(t *testing.T) {
	checkPhilox(t, tletest.GPU(t), func(want, r float64) float64 {
		return 0x1p-20*math.Abs(want) + math.Min(0x1p-20/r, math.Sqrt(0x1p-20))
	})
}
