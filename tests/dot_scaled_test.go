package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// The reference of dot_scaled: its own decoders of the microscaling
// formats (from the OCP MX spec and the fp8/fp16 layouts, not the
// project's floats package), the emulation's rounding to the compute
// dtype, and the product summed in float64.

// dsE2M1 decodes an fp4 e2m1 code (0..15): sign, 2 exponent bits with
// bias 1, 1 mantissa bit; no inf or NaN.
func dsE2M1(c uint16) float64 {
	v := [8]float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}[c&7]
	if c&8 != 0 {
		return -v
	}
	return v
}

// dsMini decodes a small IEEE-like float of ebits exponent bits (bias
// 2^(ebits-1)-1) and mbits mantissa bits; e4m3 (fn) has no infinities and
// only S.1111.111 as NaN.
func dsMini(b uint16, ebits, mbits int, fn bool) float64 {
	sign := 1.0
	if b>>(ebits+mbits)&1 != 0 {
		sign = -1
	}
	e := int(b>>mbits) & (1<<ebits - 1)
	m := int(b) & (1<<mbits - 1)
	bias := 1<<(ebits-1) - 1
	switch {
	case fn && e == 1<<ebits-1 && m == 1<<mbits-1:
		return math.NaN()
	case !fn && e == 1<<ebits-1 && m == 0:
		return sign * math.Inf(1)
	case !fn && e == 1<<ebits-1:
		return math.NaN()
	case e == 0:
		return sign * math.Ldexp(float64(m), 1-bias-mbits)
	}
	return sign * math.Ldexp(float64(m+1<<mbits), e-bias-mbits)
}

// dsDecode is the value of code in format f.
func dsDecode(f string, c uint16) float64 {
	switch f {
	case "e2m1":
		return dsE2M1(c)
	case "e4m3":
		return dsMini(c, 4, 3, true)
	case "e5m2":
		return dsMini(c, 5, 2, false)
	case "fp16":
		return dsMini(c, 5, 10, false)
	case "bf16":
		return float64(math.Float32frombits(uint32(c) << 16))
	}
	panic(f)
}

// dsScale is an e8m0 scale: 2^(e-127), 0xFF NaN, or +inf under fast_math
// (the emulation then skips the NaN check, as Triton's).
func dsScale(e uint8, fast bool) float64 {
	switch {
	case e == 0xff && fast:
		return math.Inf(1)
	case e == 0xff:
		return math.NaN()
	}
	return math.Ldexp(1, int(e)-127)
}

// dsCase is one dot_scaled call: formats, packing, which scales and
// keywords it gives, the logical sizes and the dtypes of the kernel's
// pointers.
type dsCase struct {
	name           string
	lf, rf         string
	lkp, rkp       bool // k_pack
	lt, rt         string
	lscale, rscale bool
	fast, acc      bool
	m, n, k        int
	batch          int // > 1: a batched (3-D) call, each batch's inputs after the other's
}

// dsInputs are a case's logical codes (lhs [M, K], rhs [K, N]), its scale
// bytes ([M, K/32], [N, K/32]) and accumulator.
type dsInputs struct {
	l, r     []uint16
	ls, rs   []uint8
	acc      []float32
	hasNaNIn bool
}

// source is the case's kernel: it loads the operands as stored (packed
// fp4 bytes [M, K/2], [M/2, K], [K/2, N] or [K, N/2]) and the scales, and
// stores dot_scaled's result; batch > 1 adds a leading dimension to every
// tile (a batched dot_scaled).
func (c dsCase) source() string {
	ar, ac := c.m, c.k
	if c.lf == "e2m1" && c.lkp {
		ac /= 2
	} else if c.lf == "e2m1" {
		ar /= 2
	}
	br, bc := c.k, c.n
	if c.rf == "e2m1" && c.rkp {
		br /= 2
	} else if c.rf == "e2m1" {
		bc /= 2
	}
	g := c.k / 32
	// idx is the offsets of a row-major [rows, cols] tile (per batch)
	idx := func(rows, cols int) string {
		if c.batch <= 1 {
			return fmt.Sprintf("arange(0, %d)[:, None]*%d + arange(0, %d)[None, :]", rows, cols, cols)
		}
		return fmt.Sprintf("arange(0, %d)[:, None, None]*%d + arange(0, %d)[None, :, None]*%d + arange(0, %d)[None, None, :]", c.batch, rows*cols, rows, cols, cols)
	}
	xs, ys := "None", "None"
	var b strings.Builder
	fmt.Fprintf(&b, "kernel %s(a *%s, as *u8, b *%s, bs *u8, acc *f32, c *f32) {\n", c.name, c.lt, c.rt)
	fmt.Fprintf(&b, "    x := load(a + %s)\n", idx(ar, ac))
	fmt.Fprintf(&b, "    y := load(b + %s)\n", idx(br, bc))
	if c.lscale {
		fmt.Fprintf(&b, "    xs := load(as + %s)\n", idx(c.m, g))
		xs = "xs"
	}
	if c.rscale {
		fmt.Fprintf(&b, "    ys := load(bs + %s)\n", idx(c.n, g))
		ys = "ys"
	}
	out := idx(c.m, c.n)
	call := fmt.Sprintf("dot_scaled(x, %s, %q, y, %s, %q", xs, c.lf, ys, c.rf)
	if c.acc {
		fmt.Fprintf(&b, "    c0 := load(acc + %s)\n", out)
		call += ", c0"
	}
	for _, kw := range []struct {
		on   bool
		text string
	}{{c.fast, "fast_math: true"}, {!c.lkp, "lhs_k_pack: false"}, {!c.rkp, "rhs_k_pack: false"}} {
		if kw.on {
			call += ", " + kw.text
		}
	}
	fmt.Fprintf(&b, "    store(c + %s, %s))\n}\n", out, call)
	return b.String()
}

// pack stores logical codes [rows, cols] as the kernel reads them: fp4
// two a byte along the packed dim (the first in the low nibble), others
// one an element, as bytes or 16-bit words.
func dsPack(f string, kPack, lhs bool, codes []uint16, rows, cols int) any {
	switch f {
	case "bf16", "fp16":
		return append([]uint16(nil), codes...)
	case "e4m3", "e5m2":
		out := make([]uint8, len(codes))
		for i, c := range codes {
			out[i] = uint8(c)
		}
		return out
	}
	// along cols for lhs with k_pack and rhs without, along rows otherwise
	alongCols := lhs == kPack
	out := make([]uint8, len(codes)/2)
	for i := range rows {
		for j := range cols {
			c := uint8(codes[i*cols+j])
			var idx int
			hi := false
			if alongCols {
				idx, hi = i*(cols/2)+j/2, j%2 == 1
			} else {
				idx, hi = (i/2)*cols+j, i%2 == 1
			}
			if hi {
				out[idx] |= c << 4
			} else {
				out[idx] |= c
			}
		}
	}
	return out
}

// dsPackBatches packs nb batches of [rows, cols] codes one after the other.
func dsPackBatches(f string, kPack, lhs bool, codes []uint16, nb, rows, cols int) any {
	if nb == 1 {
		return dsPack(f, kPack, lhs, codes, rows, cols)
	}
	var b8 []uint8
	var b16 []uint16
	n := rows * cols
	for bi := range nb {
		switch p := dsPack(f, kPack, lhs, codes[bi*n:(bi+1)*n], rows, cols).(type) {
		case []uint8:
			b8 = append(b8, p...)
		case []uint16:
			b16 = append(b16, p...)
		}
	}
	if b16 != nil {
		return b16
	}
	return b8
}

// reference computes the case's result as the emulation defines it, in
// float64: each operand decoded, rounded to the compute dtype, times its
// scale in that dtype (rounded again), the products summed exactly and
// rounded once to f32 with the accumulator. mag is |acc| + the sum of the
// products' magnitudes, for the error bound.
func (c dsCase) reference(in dsInputs) (want, mag []float64) {
	if c.batch > 1 {
		one := c
		one.batch = 1
		ml, mr, ms, ns, mn := c.m*c.k, c.k*c.n, c.m*c.k/32, c.n*c.k/32, c.m*c.n
		for bi := range c.batch {
			part := dsInputs{l: in.l[bi*ml : (bi+1)*ml], r: in.r[bi*mr : (bi+1)*mr], ls: in.ls[bi*ms : (bi+1)*ms], rs: in.rs[bi*ns : (bi+1)*ns]}
			if in.acc != nil {
				part.acc = in.acc[bi*mn : (bi+1)*mn]
			}
			w, g := one.reference(part)
			want, mag = append(want, w...), append(mag, g...)
		}
		return want, mag
	}
	cd := ir.BF16
	if c.lf == "fp16" || c.rf == "fp16" {
		cd = ir.F16
	}
	m, n, k := c.m, c.n, c.k
	scaled := func(f string, codes []uint16, sc []uint8, rows, cols int, lhs bool) []float64 {
		out := make([]float64, rows*cols)
		for i := range rows {
			for j := range cols {
				v := cd.Round(dsDecode(f, codes[i*cols+j]))
				if sc != nil {
					outer, kk := i, j // lhs [M, K]
					if !lhs {
						outer, kk = j, i // rhs [K, N]: scale [N, K/32]
					}
					v = cd.Round(v * cd.Round(dsScale(sc[outer*(k/32)+kk/32], c.fast)))
				}
				out[i*cols+j] = v
			}
		}
		return out
	}
	var ls, rs []uint8
	if c.lscale {
		ls = in.ls
	}
	if c.rscale {
		rs = in.rs
	}
	a := scaled(c.lf, in.l, ls, m, k, true)
	b := scaled(c.rf, in.r, rs, k, n, false)
	want, mag = make([]float64, m*n), make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s, g float64
			if c.acc {
				s, g = float64(in.acc[i*n+j]), math.Abs(float64(in.acc[i*n+j]))
			}
			for l := range k {
				p := a[i*k+l] * b[l*n+j]
				s += p
				g += math.Abs(p)
			}
			want[i*n+j], mag[i*n+j] = float64(float32(s)), g
		}
	}
	return want, mag
}

// dsRandCode draws a code of format f: every fp4 code, fp8 codes without
// NaN (and e5m2 without infinities), 16-bit floats from a normal
// distribution; never zero for the wider formats.
func dsRandCode(r *rand.Rand, f string) uint16 {
	switch f {
	case "e2m1":
		return uint16(r.IntN(16))
	case "e4m3":
		for {
			c := uint16(r.IntN(256))
			if c&0x7f != 0x7f && c&0x7f != 0 {
				return c
			}
		}
	case "e5m2":
		for {
			c := uint16(r.IntN(256))
			if c&0x7c != 0x7c && c&0x7f != 0 {
				return c
			}
		}
	case "bf16":
		return uint16(math.Float32bits(float32(r.NormFloat64()+0.1)) >> 16)
	case "fp16":
		// a sign, an exponent for 2^-5 .. 2^5, any mantissa
		return uint16(r.IntN(2))<<15 | uint16(10+r.IntN(11))<<10 | uint16(r.IntN(1024))
	}
	panic(f)
}

// randInputs draws a case's inputs. Scale exponents spread over 127 +- wide
// (f16 compute: +- 10, its range), with extremes (0: 2^-127, 254: 2^127)
// on some groups when extremes; nan puts 0xFF on row 5's first lhs group. The fp4
// extremes (+-6, +-0) are forced in.
func (c dsCase) randInputs(r *rand.Rand, wide int, extremes, nan bool) dsInputs {
	nb := max(c.batch, 1)
	in := dsInputs{l: make([]uint16, nb*c.m*c.k), r: make([]uint16, nb*c.k*c.n)}
	for i := range in.l {
		in.l[i] = dsRandCode(r, c.lf)
	}
	for i := range in.r {
		in.r[i] = dsRandCode(r, c.rf)
	}
	for _, side := range []struct {
		f     string
		codes []uint16
	}{{c.lf, in.l}, {c.rf, in.r}} {
		if side.f == "e2m1" {
			copy(side.codes[3:], []uint16{7, 15, 0, 8, 1, 9})
		}
	}
	g := c.k / 32
	scales := func(n int) []uint8 {
		s := make([]uint8, nb*n*g)
		for i := range s {
			s[i] = uint8(127 + r.IntN(2*wide+1) - wide)
			if extremes && r.IntN(20) == 0 {
				s[i] = []uint8{0, 1, 3, 230, 254}[r.IntN(5)]
			}
		}
		return s
	}
	in.ls, in.rs = scales(c.m), scales(c.n)
	if nan {
		in.ls[5*g] = 0xff
		in.hasNaNIn = true
	}
	in.acc = make([]float32, nb*c.m*c.n)
	for i := range in.acc {
		in.acc[i] = float32(r.NormFloat64())
	}
	return in
}

// run runs the case on dev and returns the f32 result.
func (c dsCase) run(t *testing.T, dev tle.Device, in dsInputs) []float32 {
	t.Helper()
	prog, err := tle.Parse(c.name+".tle", []byte(c.source()))
	require.NoError(t, err, "%s", c.source())
	k, err := prog.Kernel(c.name)
	require.NoError(t, err)
	nb := max(c.batch, 1)
	out := make([]float32, nb*c.m*c.n)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	ls, rs := in.ls, in.rs
	if ls == nil {
		ls = make([]uint8, 1)
	}
	if rs == nil {
		rs = make([]uint8, 1)
	}
	acc := in.acc
	if acc == nil {
		acc = make([]float32, nb*c.m*c.n)
	}
	args := map[string]any{
		"a": dsPackBatches(c.lf, c.lkp, true, in.l, nb, c.m, c.k), "b": dsPackBatches(c.rf, c.rkp, false, in.r, nb, c.k, c.n),
		"as": ls, "bs": rs, "acc": acc, "c": out,
	}
	require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args), "%s on %s", c.name, dev.Name())
	return out
}

// compare checks got against the reference: NaN where it is NaN, the same
// infinity, and finite values within tol * mag plus an ulp of f32.
func (c dsCase) compare(t *testing.T, got []float32, want, mag []float64, tol float64, what string) (finite int) {
	t.Helper()
	for i, w := range want {
		g := float64(got[i])
		switch {
		case math.IsNaN(w):
			require.True(t, math.IsNaN(g), "%s: element %d: got %v, want NaN", what, i, g)
		case math.IsInf(w, 0):
			require.Equal(t, w, g, "%s: element %d", what, i)
		default:
			finite++
			require.InDelta(t, w, g, tol*mag[i]+math.Abs(w)*0x1p-23, "%s: element %d (magnitude %g)", what, i, mag[i])
		}
	}
	return finite
}

// dsCases cover every format on each side, both packings of fp4, bf16 and
// f16 compute, a None scale on either side, fast_math, an omitted acc.
var dsCases = []dsCase{
	{name: "fp4_fp8", lf: "e2m1", rf: "e4m3", lkp: true, rkp: true, lt: "u8", rt: "f8e4m3", lscale: true, rscale: true, acc: true, m: 32, n: 16, k: 128},
	{name: "fp8_fp4", lf: "e4m3", rf: "e2m1", lkp: true, rkp: true, lt: "u8", rt: "u8", lscale: true, rscale: true, acc: true, m: 16, n: 32, k: 64},
	{name: "fp4m_e5m2", lf: "e2m1", rf: "e5m2", lkp: false, rkp: true, lt: "u8", rt: "f8e5m2", lscale: true, rscale: true, acc: true, m: 32, n: 32, k: 64},
	{name: "bf16_fp4n", lf: "bf16", rf: "e2m1", lkp: true, rkp: false, lt: "bf16", rt: "u8", rscale: true, acc: true, m: 16, n: 32, k: 64},
	{name: "fp16_bf16", lf: "fp16", rf: "bf16", lkp: true, rkp: true, lt: "u16", rt: "u16", lscale: true, rscale: true, acc: true, m: 16, n: 16, k: 64},
	{name: "fp4_fp4_fast", lf: "e2m1", rf: "e2m1", lkp: true, rkp: true, lt: "u8", rt: "u8", lscale: true, rscale: true, fast: true, acc: true, m: 16, n: 16, k: 128},
	{name: "e5m2_bf16", lf: "e5m2", rf: "bf16", lkp: true, rkp: true, lt: "u8", rt: "bf16", lscale: true, m: 16, n: 16, k: 32},
	{name: "batched", lf: "e2m1", rf: "e2m1", lkp: true, rkp: false, lt: "u8", rt: "u8", lscale: true, rscale: true, acc: true, m: 16, n: 32, k: 64, batch: 2},
}

// TestDotScaledInterp runs every case on the interpreter with random codes
// and scales over a wide exponent range (extremes and a NaN group
// included) against the float64 reference: the sums are float64 on both,
// so only their order differs.
func TestDotScaledInterp(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(35, 32))
	for _, c := range dsCases {
		wide := 40
		if c.lf == "fp16" || c.rf == "fp16" {
			wide = 10
		}
		in := c.randInputs(r, wide, true, c.lscale)
		if !c.acc {
			in.acc = nil
		}
		want, mag := c.reference(in)
		got := c.run(t, tle.CPU(), in)
		finite := c.compare(t, got, want, mag, 0x1p-40, c.name)
		require.Greater(t, finite, len(want)*3/4, "%s: too few finite results to check", c.name)
		if in.hasNaNIn {
			// the NaN group's row: NaN (or, under fast_math, inf or NaN)
			for j := range c.n {
				g := float64(got[5*c.n+j])
				require.True(t, math.IsNaN(g) || c.fast && math.IsInf(g, 0), "%s: row 5 (a 0xFF scale) element %d is %v", c.name, j, g)
			}
		}
	}
}

// TestDotScaledDecode checks every code exactly: with rhs the bf16
// identity and no rhs scale, each result is one scaled lhs element, so
// the result is the decoded value itself. Every fp4 byte (both nibbles),
// every fp8 code (NaNs and infinities poison their row: NaN * 0), and
// every e8m0 exponent 0..255 on 1.0.
func TestDotScaledDecode(t *testing.T) {
	t.Parallel()
	ident := func(n int) []uint16 {
		id := make([]uint16, n*n)
		for i := range n {
			id[i*n+i] = 0x3f80 // bf16 1.0
		}
		return id
	}
	// fp4: lhs [16, 32] packed into 256 bytes, byte b = 16*i + j
	c := dsCase{name: "fp4dec", lf: "e2m1", rf: "bf16", lkp: true, rkp: true, lt: "u8", rt: "bf16", m: 16, n: 32, k: 32}
	in := dsInputs{l: make([]uint16, 16*32), r: ident(32)}
	for b := range 256 {
		in.l[2*b], in.l[2*b+1] = uint16(b&15), uint16(b>>4)
	}
	want, _ := c.reference(in)
	got := c.run(t, tle.CPU(), in)
	for i := range want {
		require.Equal(t, want[i], float64(got[i]), "fp4 byte %#02x, nibble %d", i/2, i%2)
	}
	// fp8: lhs [16, 32]: every code in order, twice
	for _, f := range []struct{ format, ptr string }{{"e4m3", "f8e4m3"}, {"e5m2", "u8"}} {
		c := dsCase{name: "fp8dec", lf: f.format, rf: "bf16", lkp: true, rkp: true, lt: f.ptr, rt: "bf16", m: 16, n: 32, k: 32}
		in := dsInputs{l: make([]uint16, 16*32), r: ident(32)}
		for i := range in.l {
			in.l[i] = uint16(i % 256)
		}
		want, _ := c.reference(in)
		got := c.run(t, tle.CPU(), in)
		for i := range want {
			if math.IsNaN(want[i]) {
				require.True(t, math.IsNaN(float64(got[i])), "%s row %d (with a NaN or an infinity) element %d: %v", f.format, i/32, i%32, got[i])
				continue
			}
			require.Equal(t, want[i], float64(got[i]), "%s code %#02x", f.format, i%256)
		}
	}
	// e8m0: lhs [128, 64] of e4m3 1.0, scales [128, 2] = 0..255
	c = dsCase{name: "e8m0dec", lf: "e4m3", rf: "bf16", lkp: true, rkp: true, lt: "u8", rt: "bf16", lscale: true, m: 128, n: 64, k: 64}
	in = dsInputs{l: make([]uint16, 128*64), r: ident(64), ls: make([]uint8, 256)}
	for i := range in.l {
		in.l[i] = 0x38 // e4m3 1.0
	}
	for e := range 256 {
		in.ls[e] = uint8(e)
	}
	got = c.run(t, tle.CPU(), in)
	for i := range 128 {
		for j := range 64 {
			e := 2*i + j/32
			g := float64(got[i*64+j])
			if i == 127 { // scale 0xFF in its second group: the row is NaN
				require.True(t, math.IsNaN(g), "row 127 (scale 0xff) element %d: %v", j, g)
				continue
			}
			require.Equal(t, math.Ldexp(1, e-127), g, "e8m0 %d", e)
		}
	}
}

// TestDotScaledNaNScale: a 0xFF scale makes its group NaN even where every
// value and product is positive (Triton's where(scale == 0xFF, NaN, ...));
// fast_math: true skips that check, and the unchecked scale is +inf.
func TestDotScaledNaNScale(t *testing.T) {
	t.Parallel()
	for _, fast := range []bool{false, true} {
		c := dsCase{name: "nanscale", lf: "e4m3", rf: "bf16", lkp: true, rkp: true, lt: "u8", rt: "bf16", lscale: true, fast: fast, m: 16, n: 16, k: 64}
		in := dsInputs{l: make([]uint16, 16*64), r: make([]uint16, 64*16), ls: make([]uint8, 16*2)}
		for i := range in.l {
			in.l[i] = 0x38 // e4m3 1.0
		}
		for i := range in.r {
			in.r[i] = 0x3f80 // bf16 1.0
		}
		for i := range in.ls {
			in.ls[i] = 127
		}
		in.ls[3*2+1] = 0xff // row 3, second group
		got := c.run(t, tle.CPU(), in)
		for i := range 16 {
			for j := range 16 {
				g := float64(got[i*16+j])
				switch {
				case i != 3:
					require.Equal(t, 64.0, g, "fast_math %v: row %d", fast, i)
				case fast:
					require.Equal(t, math.Inf(1), g, "fast_math: the 0xFF scale is +inf")
				default:
					require.True(t, math.IsNaN(g), "the 0xFF scale's row is NaN, got %v", g)
				}
			}
		}
	}
}

// TestDotScaledBoundPacking: a packing given by a const parameter checks
// unbound (K-packed shapes, not compared) and is checked once bound: true
// runs, false (the bytes then pack along M, K is 32) is an error at the
// call naming both K.
func TestDotScaledBoundPacking(t *testing.T) {
	t.Parallel()
	src := `kernel kp(a *u8, s *u8, b *f8e4m3, out *f32, KP const i1) {
    m := arange(0, 32)
    k := arange(0, 64)
    g := arange(0, 2)
    x := load(a + m[:, None]*32 + m[None, :])
    xs := load(s + m[:, None]*2 + g[None, :])
    y := load(b + k[:, None]*32 + m[None, :])
    store(out + m[:, None]*32 + m[None, :], dot_scaled(x, xs, "e2m1", y, xs, "e4m3", lhs_k_pack: KP))
}
`
	prog, err := tle.Parse("kp.tle", []byte(src))
	require.NoError(t, err)
	k, err := prog.Kernel("kp")
	require.NoError(t, err)
	args := func() map[string]any {
		return map[string]any{"a": make([]uint8, 32*32), "s": make([]uint8, 64), "b": make([]uint8, 64*32), "out": make([]float32, 32*32)}
	}
	require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"KP": "true"}}, args()))
	err = k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"KP": "false"}}, args())
	require.ErrorContains(t, err, "kp.tle:8:45: error: dot_scaled: the reduction dimensions differ: lhs [32,32]u8 (e2m1) holds K = 32, rhs [64,32]f8e4m3 (e4m3) holds K = 64")
}

// TestGPUDotScaled runs the random cases on the GPU, with scales of 127
// +- 20 (no extremes: the tensor cores' f32 products and sums would
// overflow or flush where the interpreter's float64 does not) and the NaN
// group; the sums' order and f32 partial sums differ from the reference
// (at most K * 2^-24 of the products' magnitude, K <= 128).
func TestGPUDotScaled(t *testing.T) {
	g := tletest.GPU(t)
	r := rand.New(rand.NewPCG(35, 33))
	for _, c := range dsCases {
		if c.batch > 1 {
			continue // a batched dot does not run on the GPU yet
		}
		wide := 20
		if c.lf == "fp16" || c.rf == "fp16" {
			wide = 8
		}
		in := c.randInputs(r, wide, false, c.lscale)
		if !c.acc {
			in.acc = nil
		}
		want, mag := c.reference(in)
		got := c.run(t, g, in)
		c.compare(t, got, want, mag, 0x1p-14, c.name+" on the GPU")
	}
}
