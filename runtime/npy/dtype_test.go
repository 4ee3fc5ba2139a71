package npy

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/tlego/tle/ir"

	"github.com/tlego/tle/floats"
)

type bitCase struct {
	x    float64
	want uint64
}

func checkBits(t *testing.T, name string, enc func(float64) uint64, cases []bitCase) {
	t.Helper()
	for _, c := range cases {
		if got := enc(c.x); got != c.want {
			t.Errorf("%s(%v) = %#x, want %#x", name, c.x, got, c.want)
		}
	}
}

func TestF16Bits(t *testing.T) {
	checkBits(t, "f16", func(x float64) uint64 { return uint64(F16Bits(x)) }, []bitCase{
		{0, 0}, {math.Copysign(0, -1), 0x8000}, {1, 0x3c00}, {-2, 0xc000}, {0.5, 0x3800},
		{0.1, 0x2e66}, {1.0 / 3, 0x3555}, {math.Pi, 0x4248}, {65504, 0x7bff},
		{65519.99, 0x7bff}, {65520, 0x7c00}, {-65520, 0xfc00}, {1e10, 0x7c00},
		{math.Inf(1), 0x7c00}, {math.Inf(-1), 0xfc00}, {math.NaN(), 0x7fff},
		{1 + 0x1p-11, 0x3c00},           // tie: to even (down)
		{1 + 3*0x1p-11, 0x3c02},         // tie: to even (up)
		{1 + 0x1p-11 + 0x1p-40, 0x3c01}, // just above the tie: no double rounding through f32
		{0x1p-14, 0x0400},               // smallest normal
		{0x1p-24, 0x0001},               // smallest subnormal
		{1023 * 0x1p-24, 0x03ff},        // largest subnormal
		{0x1p-25, 0x0000},               // tie between 0 and the smallest subnormal
		{0x1p-25 * 1.000001, 0x0001},    // above it
		{3 * 0x1p-25, 0x0002},           // tie between 1 and 2 quanta: even
		{(1023.5) * 0x1p-24, 0x0400},    // largest subnormal + half: rounds up into the normals
		{-0x1p-26, 0x8000},              // underflow keeps the sign
		{2049, 0x6800}, {2051, 0x6802},  // integers above 2048: ties to even
		{0x1p-1074, 0}, {math.MaxFloat64, 0x7c00},
	})
}

func TestBF16Bits(t *testing.T) {
	checkBits(t, "bf16", func(x float64) uint64 { return uint64(BF16Bits(x)) }, []bitCase{
		{0, 0}, {math.Copysign(0, -1), 0x8000}, {1, 0x3f80}, {-1, 0xbf80}, {math.Pi, 0x4049},
		{3.15625, 0x404a}, {0.1, 0x3dcd}, {1 + 0x1p-8, 0x3f80}, {1 + 3*0x1p-8, 0x3f82},
		{1 + 0x1p-8 + 0x1p-30, 0x3f81}, {3.389e38, 0x7f7f}, {3.38e38, 0x7f7e}, {3.4e38, 0x7f80}, {math.MaxFloat32, 0x7f80},
		{math.Inf(-1), 0xff80}, {math.NaN(), 0x7fff}, {0x1p-126, 0x0080}, {0x1p-133, 0x0001},
		{0x1p-134, 0x0000}, {3 * 0x1p-134, 0x0002}, {65536, 0x4780}, {257, 0x4380}, {259, 0x4382},
	})
}

func TestF8E4M3Bits(t *testing.T) {
	checkBits(t, "e4m3", func(x float64) uint64 { return uint64(F8E4M3Bits(x)) }, []bitCase{
		{0, 0}, {math.Copysign(0, -1), 0x80}, {1, 0x38}, {-1, 0xb8}, {0.5, 0x30}, {2, 0x40},
		{1.0625, 0x38}, {1.1875, 0x3a}, {240, 0x77}, {256, 0x78}, {448, 0x7e}, {-448, 0xfe},
		{449, 0x7e}, {464, 0x7e}, {480, 0x7e}, {1e9, 0x7e}, {-1e9, 0xfe}, // satfinite
		{math.Inf(1), 0x7e}, {math.Inf(-1), 0xfe}, {math.NaN(), 0x7f},
		{0x1p-6, 0x08}, {0x1p-9, 0x01}, {7 * 0x1p-9, 0x07}, {0x1p-10, 0x00}, {3 * 0x1p-10, 0x02},
		{0.3, 0x2a}, // 0.3 = 1.2 * 2^-2: 1.25 is nearer than 1.125
	})
}

func TestF8E5M2Bits(t *testing.T) {
	checkBits(t, "e5m2", func(x float64) uint64 { return uint64(F8E5M2Bits(x)) }, []bitCase{
		{0, 0}, {math.Copysign(0, -1), 0x80}, {1, 0x3c}, {-1, 0xbc}, {1.125, 0x3c}, {1.375, 0x3e},
		{1.5, 0x3e}, {57344, 0x7b}, {-57344, 0xfb}, {61440, 0x7b}, {1e6, 0x7b},
		{math.Inf(1), 0x7b}, {math.Inf(-1), 0xfb}, {math.NaN(), 0x7f},
		{0x1p-14, 0x04}, {0x1p-16, 0x01}, {0x1p-17, 0x00}, {3 * 0x1p-17, 0x02},
	})
}

func TestDecodeSpecials(t *testing.T) {
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"e4m3 0x7e", F8E4M3Value(0x7e), 448}, {"e4m3 0xfe", F8E4M3Value(0xfe), -448},
		{"e4m3 0x01", F8E4M3Value(0x01), 0x1p-9}, {"e4m3 0x78", F8E4M3Value(0x78), 256},
		{"e5m2 0x7b", F8E5M2Value(0x7b), 57344}, {"e5m2 0x7c", F8E5M2Value(0x7c), math.Inf(1)},
		{"e5m2 0xfc", F8E5M2Value(0xfc), math.Inf(-1)}, {"f16 0x7bff", F16Value(0x7bff), 65504},
		{"f16 0x0001", F16Value(1), 0x1p-24}, {"f16 0xfc00", F16Value(0xfc00), math.Inf(-1)},
		{"bf16 0x7f7f", BF16Value(0x7f7f), 3.3895313892515355e38}, {"bf16 0x3f80", BF16Value(0x3f80), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for name, v := range map[string]float64{"e4m3 0x7f": F8E4M3Value(0x7f), "e4m3 0xff": F8E4M3Value(0xff),
		"e5m2 0x7d": F8E5M2Value(0x7d), "f16 0x7e00": F16Value(0x7e00), "bf16 0x7fc0": BF16Value(0x7fc0)} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
	if v := F8E4M3Value(0x80); v != 0 || !math.Signbit(v) {
		t.Errorf("e4m3 0x80 = %v, want -0", v)
	}
}

// testFormat is a float format seen through this package's conversions
// (F16Bits, F16Value, ...), with the facts the tests below need.
type testFormat struct {
	encode  func(float64) uint64
	decode  func(uint64) float64
	nan     uint64 // the NaN encode gives
	satfin  bool   // overflow and ±inf saturate
	man     int    // mantissa bits
	f       floats.Format
	maxBits uint64
}

func (f testFormat) bias() int         { return f.f.Bias() }
func (f testFormat) maxFinite() uint64 { return f.maxBits }

func newTestFormat(f floats.Format, nan uint64, satfin bool, enc func(float64) uint64, dec func(uint64) float64) testFormat {
	return testFormat{encode: enc, decode: dec, nan: nan, satfin: satfin, man: f.MantissaBits(), f: f, maxBits: enc(floats.MaxFinite(f))}
}

var (
	fmtF16 = newTestFormat(floats.F16, 0x7fff, false, func(x float64) uint64 { return uint64(F16Bits(x)) },
		func(b uint64) float64 { return F16Value(uint16(b)) })
	fmtBF16 = newTestFormat(floats.BF16, 0x7fff, false, func(x float64) uint64 { return uint64(BF16Bits(x)) },
		func(b uint64) float64 { return BF16Value(uint16(b)) })
	fmtE4M3 = newTestFormat(floats.E4M3FN, 0x7f, true, func(x float64) uint64 { return uint64(F8E4M3Bits(x)) },
		func(b uint64) float64 { return F8E4M3Value(uint8(b)) })
	fmtE5M2 = newTestFormat(floats.E5M2, 0x7f, true, func(x float64) uint64 { return uint64(F8E5M2Bits(x)) },
		func(b uint64) float64 { return F8E5M2Value(uint8(b)) })
)

// Every non-NaN bit pattern survives decode then encode (fp8 e5m2 infinities
// saturate, by satfinite).
func TestRoundTripAllPatterns(t *testing.T) {
	for _, c := range []struct {
		name string
		f    testFormat
		bits int
	}{{"f16", fmtF16, 16}, {"bf16", fmtBF16, 16}, {"e4m3", fmtE4M3, 8}, {"e5m2", fmtE5M2, 8}} {
		for b := uint64(0); b < 1<<c.bits; b++ {
			v := c.f.decode(b)
			if math.IsNaN(v) {
				if got := c.f.encode(v); got != c.f.nan {
					t.Errorf("%s NaN -> %#x", c.name, got)
				}
				continue
			}
			want := b
			if math.IsInf(v, 0) && c.f.satfin {
				want = b&(1<<(c.bits-1)) | c.f.maxFinite()
			}
			if got := c.f.encode(v); got != want {
				t.Fatalf("%s %#x = %v re-encodes to %#x", c.name, b, v, got)
			}
		}
	}
}

// encode agrees with a brute-force nearest-value search (ties to the even
// pattern) over all finite values, for random inputs spanning the range.
func TestRoundingMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range []struct {
		name string
		f    testFormat
		bits int
	}{{"f16", fmtF16, 16}, {"bf16", fmtBF16, 16}, {"e4m3", fmtE4M3, 8}, {"e5m2", fmtE5M2, 8}} {
		type val struct {
			v float64
			b uint64
		}
		var pos []val // non-negative finite values, ascending
		for b := uint64(0); b < 1<<(c.bits-1); b++ {
			if v := c.f.decode(b); !math.IsNaN(v) && !math.IsInf(v, 0) {
				pos = append(pos, val{v, b})
			}
		}
		sort.Slice(pos, func(i, j int) bool { return pos[i].v < pos[j].v })
		maxV := pos[len(pos)-1].v
		for i := 0; i < 20000; i++ {
			// random magnitude across the whole exponent range, plus exact midpoints
			var x float64
			if i%4 == 0 {
				k := rng.Intn(len(pos) - 1)
				x = (pos[k].v + pos[k+1].v) / 2
			} else {
				e := rng.Intn(c.f.bias()*2+c.f.man+4) - c.f.bias() - c.f.man - 2
				x = math.Ldexp(1+rng.Float64(), e)
			}
			if x > maxV {
				continue // overflow behaviour is checked by the tables
			}
			k := sort.Search(len(pos), func(j int) bool { return pos[j].v >= x })
			want := pos[k]
			if k > 0 {
				lo := pos[k-1]
				dl, dh := x-lo.v, want.v-x
				if dl < dh || (dl == dh && lo.b%2 == 0) {
					want = lo
				}
			}
			if got := c.f.encode(x); got != want.b {
				t.Fatalf("%s(%v) = %#x, want %#x", c.name, x, got, want.b)
			}
			if got := c.f.encode(-x); got != want.b|1<<(c.bits-1) {
				t.Fatalf("%s(%v) = %#x, want %#x", c.name, -x, got, want.b|1<<(c.bits-1))
			}
		}
	}
}

func TestIntBits(t *testing.T) {
	for _, c := range []struct {
		x    float64
		n    int
		want uint64
	}{
		{-1, 8, 0xff}, {3.9, 32, 3}, {-3.9, 32, 0xfffffffd}, {256, 8, 0}, {300, 8, 44},
		{200, 8, 0xc8}, {0x1p63, 64, 1 << 63}, {-0x1p63, 64, 1 << 63}, {1e20, 64, 7766279631452241920},
		{-1e20, 64, -7766279631452241920 & (1<<64 - 1)}, {math.NaN(), 32, 0}, {math.Inf(1), 16, 0},
		{65535.9, 16, 65535}, {-0.9, 16, 0}, {0x1p64 + 0x1p12, 64, 1 << 12},
	} {
		if got := IntBits(c.x, c.n); got != c.want {
			t.Errorf("IntBits(%v, %d) = %#x, want %#x", c.x, c.n, got, c.want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	src := []float64{1, -2.5, 300, 0.1, math.Copysign(0, -1)}
	for _, c := range []struct {
		d    ir.DType
		want []byte
	}{
		{ir.F32, []byte{0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0, 0, 0, 0x96, 0x43, 0xcd, 0xcc, 0xcc, 0x3d, 0, 0, 0, 0x80}},
		{ir.F16, []byte{0, 0x3c, 0x00, 0xc1, 0xb0, 0x5c, 0x66, 0x2e, 0, 0x80}},
		{ir.BF16, []byte{0x80, 0x3f, 0x20, 0xc0, 0x96, 0x43, 0xcd, 0x3d, 0, 0x80}},
		{ir.F8E4M3, []byte{0x38, 0xc2, 0x79, 0x1d, 0x80}}, // 300 -> 288 (0x79), in range,
		{ir.F8E5M2, []byte{0x3c, 0xc1, 0x5d, 0x2e, 0x80}},
		{ir.I8, []byte{1, 0xfe, 44, 0, 0}},
		{ir.U16, []byte{1, 0, 0xfe, 0xff, 0x2c, 0x01, 0, 0, 0, 0}},
		{ir.I1, []byte{1, 1, 1, 1, 0}},
	} {
		got, err := Encode(c.d, src)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(c.want) {
			t.Errorf("Encode(%s) = % x, want % x", c.d, got, c.want)
		}
	}
	b, _ := Encode(ir.F64, src)
	back, err := Decode(ir.F64, b)
	if err != nil || back[3] != 0.1 || !math.Signbit(back[4]) {
		t.Errorf("f64 round trip %v %v", back, err)
	}
	b, _ = Encode(ir.BF16, []float64{1.5, -3})
	if back, _ := Decode(ir.BF16, b); back[0] != 1.5 || back[1] != -3 {
		t.Errorf("bf16 decode %v", back)
	}
	b, _ = EncodeInts(ir.I32, []int64{-5, 1 << 40})
	if ints, _ := DecodeInts(ir.I32, b); ints[0] != -5 || ints[1] != 0 {
		t.Errorf("i32 ints %v", ints)
	}
	b, _ = EncodeInts(ir.U64, []int64{-1})
	if f, _ := Decode(ir.U64, b); f[0] != 0x1p64 {
		t.Errorf("u64 max decodes to %v", f[0])
	}
	if _, err := Encode(ir.Invalid, src); err == nil {
		t.Error("unknown dtype accepted")
	}
	if _, err := Decode(ir.F32, []byte{1, 2, 3}); err == nil {
		t.Error("ragged bytes accepted")
	}
	for _, d := range ir.AllDTypes {
		if d.Bytes() == 0 {
			t.Errorf("%s has no size", d)
		}
	}
}
