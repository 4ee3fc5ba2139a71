package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// bitcastSrc reinterprets float bits as integers and back (Triton's
// cast(x, T, bitcast=True)) in each width: f -> int, int -> float, and the
// chain int -> float -> int.
const bitcastSrc = `
kernel bc(x *X, u *U, w *W, f *F, r *W, X const dtype, U const dtype, W const dtype, F const dtype) {
    o := arange(0, 1024)
    store(u + o, load(x + o).to(U, bitcast: true))
    store(f + o, cast(load(w + o), F, bitcast: true))
    store(r + o, cast(load(w + o), F, bitcast: true).to(W, bitcast: true))
}
kernel bcconst(u *u32) {
    store(u + arange(0, 2), cast(-0.0, u32, bitcast: true) + arange(0, 2).to(u32))
}
`

const bcN = 1024

// bcSpecial32 are f32 bit patterns every run covers: +-0, +-inf, quiet
// NaNs with payloads and signs, a signaling NaN, the smallest subnormal,
// the largest finite.
var bcSpecial32 = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7fc12345, 0x7f800001, 1, 0x7f7fffff}

// quiet32 is an f32 pattern as an f32 buffer read on the CPU gives it
// back: a signaling NaN quiet (Go's float32 -> float64 conversion sets
// the quiet bit, keeping the payload); everything else as it is.
func quiet32(b uint32) uint32 {
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return b | 0x400000
	}
	return b
}

// bitcastTypes are the dtypes X, U, W, F of kernel bc in each case:
// x (X) to u (U), w (W) to f (F), and w to F and back to W into r.
var bitcastTypes = map[string]map[string]string{
	"bc32":  {"X": "f32", "U": "u32", "W": "u32", "F": "f32"},
	"bc64":  {"X": "f64", "U": "i64", "W": "i64", "F": "f64"},
	"bc16":  {"X": "f16", "U": "i16", "W": "i16", "F": "f16"},
	"bcb16": {"X": "bf16", "U": "u16", "W": "u16", "F": "bf16"},
	"bc8":   {"X": "f8e5m2", "U": "u8", "W": "i8", "F": "f8e4m3"},
}

func runBitcast(t *testing.T, dev tle.Device, prog *tle.Program, name string, args map[string]any) {
	kernel, defs := name, bitcastTypes[name]
	if defs != nil {
		kernel = "bc"
	}
	k, err := prog.Kernel(kernel)
	require.NoError(t, err)
	require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defs}, args), "%s on %s", name, dev.Name())
}

// checkBitcast runs every kernel of bitcastSrc on dev with random bit
// patterns (and the special ones) and compares with Go's
// math.Float32bits / Float64bits and the patterns themselves. quietIn is
// whether a float buffer's signaling NaNs read quiet (the interpreter's
// f32 and bf16 buffers).
func checkBitcast(t *testing.T, dev tle.Device, quietIn bool) {
	prog, err := tle.Parse("bitcast.tle", []byte(bitcastSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 4))

	// 32 bits
	w32 := make([]uint32, bcN)
	for i := range w32 {
		w32[i] = r.Uint32()
	}
	copy(w32, bcSpecial32)
	x32 := make([]float32, bcN)
	for i := range x32 {
		x32[i] = math.Float32frombits(w32[(i+7)%bcN])
	}
	u32, f32, r32 := make([]uint32, bcN), make([]float32, bcN), make([]uint32, bcN)
	runBitcast(t, dev, prog, "bc32", map[string]any{"x": x32, "u": u32, "w": w32, "f": f32, "r": r32})
	for i := range bcN {
		want := math.Float32bits(x32[i])
		if quietIn {
			want = quiet32(want)
		}
		require.Equal(t, want, u32[i], "bc32: f32 %#x to u32", math.Float32bits(x32[i]))
		require.Equal(t, w32[i], r32[i], "bc32: u32 %#x to f32 and back", w32[i])
		got := math.Float32bits(f32[i])
		if quietIn { // a signaling NaN stored from float64 is quiet
			got, w := quiet32(got), quiet32(w32[i])
			require.Equal(t, w, got, "bc32: u32 %#x to f32", w32[i])
		} else {
			require.Equal(t, w32[i], got, "bc32: u32 %#x to f32", w32[i])
		}
	}

	// 64 bits: f64 values hold every pattern
	w64 := make([]int64, bcN)
	x64 := make([]float64, bcN)
	for i := range w64 {
		w64[i] = int64(r.Uint64())
	}
	copy(w64, []int64{0, math.MinInt64, 0x7ff0000000000000, -0x10000000000000, 0x7ff8000000000000, 0x7ff8000000abcdef, -1, 1})
	for i := range x64 {
		x64[i] = math.Float64frombits(uint64(w64[(i+5)%bcN]))
	}
	u64, f64, r64 := make([]int64, bcN), make([]float64, bcN), make([]int64, bcN)
	runBitcast(t, dev, prog, "bc64", map[string]any{"x": x64, "u": u64, "w": w64, "f": f64, "r": r64})
	for i := range bcN {
		require.Equal(t, int64(math.Float64bits(x64[i])), u64[i], "bc64: f64 to i64")
		require.Equal(t, w64[i], r64[i], "bc64: i64 to f64 and back")
		require.Equal(t, uint64(w64[i]), math.Float64bits(f64[i]), "bc64: i64 %#x to f64", w64[i])
	}

	// 16 bits: every f16 and bf16 pattern (+-0 0x0000/0x8000, +-inf
	// 0x7c00/0xfc00 and 0x7f80/0xff80, NaNs with every payload)
	for _, c := range []struct {
		kernel     string
		quietNaN   uint16 // the quiet bit, set on a NaN that a buffer read quiets
		expAllOnes uint16
	}{{"bc16", 0, 0x7c00}, {"bcb16", 0x40, 0x7f80}} {
		p := make([]uint16, 1<<16)
		for i := range p {
			p[i] = uint16(i)
		}
		r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		for off := 0; off < len(p); off += bcN {
			x := p[off : off+bcN]
			w := p[(off+bcN)%len(p):][:bcN]
			u, f, rr := make([]uint16, bcN), make([]uint16, bcN), make([]uint16, bcN)
			var args map[string]any
			if c.kernel == "bc16" {
				ui, wi, ri := make([]int16, bcN), make([]int16, bcN), make([]int16, bcN)
				for i := range wi {
					wi[i] = int16(w[i])
				}
				runBitcast(t, dev, prog, c.kernel, map[string]any{"x": x, "u": ui, "w": wi, "f": f, "r": ri})
				for i := range u {
					u[i], rr[i] = uint16(ui[i]), uint16(ri[i])
				}
			} else {
				args = map[string]any{"x": x, "u": u, "w": w, "f": f, "r": rr}
				runBitcast(t, dev, prog, c.kernel, args)
			}
			for i := range bcN {
				want := x[i]
				if quietIn && want&c.expAllOnes == c.expAllOnes && want&^(c.expAllOnes|0x8000) != 0 {
					want |= c.quietNaN
				}
				require.Equal(t, want, u[i], "%s: %#04x to bits", c.kernel, x[i])
				require.Equal(t, w[i], rr[i], "%s: bits %#04x to float and back", c.kernel, w[i])
				got, wantF := f[i], w[i]
				if quietIn && wantF&c.expAllOnes == c.expAllOnes && wantF&^(c.expAllOnes|0x8000) != 0 {
					// a NaN stored from the interpreter's float64 takes the
					// dtype's canonical NaN, sign kept
					require.True(t, got&c.expAllOnes == c.expAllOnes && got&^(c.expAllOnes|0x8000) != 0 && got&0x8000 == wantF&0x8000,
						"%s: bits %#04x to float gave %#04x", c.kernel, wantF, got)
					continue
				}
				require.Equal(t, wantF, got, "%s: bits %#04x to float", c.kernel, w[i])
			}
		}
	}

	// 8 bits: every e5m2 pattern to u8, every i8 pattern to e4m3 and back
	x8, w8 := make([]uint8, bcN), make([]int8, bcN)
	for i := range bcN {
		x8[i], w8[i] = uint8(i*37), int8(i*91)
	}
	u8, f8, r8 := make([]uint8, bcN), make([]uint8, bcN), make([]int8, bcN)
	runBitcast(t, dev, prog, "bc8", map[string]any{"x": x8, "u": u8, "w": w8, "f": f8, "r": r8})
	for i := range bcN {
		require.Equal(t, x8[i], u8[i], "bc8: e5m2 %#02x to u8", x8[i])
		require.Equal(t, w8[i], r8[i], "bc8: i8 %#02x to e4m3 and back", uint8(w8[i]))
		require.Equal(t, uint8(w8[i]), f8[i], "bc8: i8 %#02x to e4m3", uint8(w8[i]))
	}

	// a compile-time operand: -0.0 is f32 0x80000000
	uc := make([]uint32, 2)
	runBitcast(t, dev, prog, "bcconst", map[string]any{"u": uc})
	require.Equal(t, []uint32{0x80000000, 0x80000001}, uc)
}

// TestBitcastInterp checks cast(bitcast: true) on the interpreter.
func TestBitcastInterp(t *testing.T) {
	t.Parallel()
	checkBitcast(t, tle.CPU(), true)
}

// TestGPUBitcast checks it on the GPU, where every pattern survives.
func TestGPUBitcast(t *testing.T) {
	g := tletest.GPU(t)
	checkBitcast(t, g, false)
}
