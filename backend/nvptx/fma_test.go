package nvptx

import (
	"regexp"
	"testing"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// fmaIR: out[i] = fma(x[i], y[i], z[i]) in dtype d over n elements, or, with
// softmax, the attention form out[i] = exp2(fma(x[i], rs, -m)) in f32 (rs
// and m scalar parameters) and, with ops, the same written exp2(x*rs - m).
// Params (x, y, z, out *d, rs, m f32), grid (1).
func fmaIR(d ir.DType, n int, form string) *ir.Module {
	k := newKernel("fma", param("x", ptr(d)), param("y", ptr(d)), param("z", ptr(d)), param("out", ptr(d)),
		param("rs", ir.F32), param("m", ir.F32))
	x := k.load(k.ptrs1(k.arg(0), n), nil, nil)
	sh := []int{n}
	var r *ir.Value
	switch form {
	case "softmax":
		negm := k.un(ir.OpNeg, k.arg(5))
		r = k.un(ir.OpExp2, k.v(ir.OpFMA, x.Type, nil, x, k.splat(k.arg(4), sh), k.splat(negm, sh)))
	case "ops":
		r = k.un(ir.OpExp2, k.bin(ir.OpSub, k.bin(ir.OpMul, x, k.splat(k.arg(4), sh)), k.splat(k.arg(5), sh)))
	default:
		y := k.load(k.ptrs1(k.arg(1), n), nil, nil)
		z := k.load(k.ptrs1(k.arg(2), n), nil, nil)
		r = k.v(ir.OpFMA, x.Type, nil, x, y, z)
	}
	k.store(k.ptrs1(k.arg(3), n), r, nil)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(4)})
}

// TestFMAPTX: fma is one fma.rn of its dtype per element (1024 elements, 128
// threads: 8 a thread), with no separate multiply or add, and 16-bit
// operands are not widened to f32; exp2(x*rs - m) written with operators
// stays a mul.rn and a sub.rn, never contracted. On sm_90a and on sm_80,
// the oldest target (fma.rn.bf16 needs it).
func TestFMAPTX(t *testing.T) {
	t.Parallel()
	tc := llcOrSkip(t)
	count := func(ptx, re string) int { return len(regexp.MustCompile(re).FindAllStringIndex(ptx, -1)) }
	cases := []struct {
		d     ir.DType
		form  string
		fma   string
		want  int
		never []string
	}{
		{ir.F32, "softmax", `fma\.rn\.f32`, 8, []string{`mul\.rn\.f32`, `add\.rn\.f32`, `sub\.rn\.f32`}},
		{ir.F32, "ops", `fma\.rn\.f32`, 0, nil},
		{ir.F32, "", `fma\.rn\.f32`, 8, []string{`mul\.rn\.f32`, `add\.rn\.f32`}},
		{ir.F16, "", `fma\.rn\.f16\s`, 8, []string{`fma\.rn\.f32`, `cvt\.f32\.f16`, `cvt\.rn\.f16\.f32`, `mul\.rn`, `add\.rn`}},
		{ir.BF16, "", `fma\.rn\.bf16\s`, 8, []string{`fma\.rn\.f32`, `cvt\.rn\.bf16\.f32`, `mul\.rn`, `add\.rn`}},
		{ir.F64, "", `fma\.rn\.f64`, 8, []string{`mul\.rn\.f64`, `add\.rn\.f64`, `cvt\.rn\.f32\.f64`}},
	}
	irs := make([]string, len(cases))
	for i, c := range cases {
		irs[i] = compileIR(t, fmaIR(c.d, 1024, c.form), 4).LLVMIR
	}
	for _, arch := range []string{"sm_90a", "sm_80"} {
		// the six modules in one llc run (PTXAll)
		ptxs, err := tc.(*LLC).PTXAll(irs, arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		for i, c := range cases {
			ptx := ptxs[i]
			if n := count(ptx, c.fma); n != c.want {
				t.Errorf("%s %v %s: %d of %s, want %d", arch, c.d, c.form, n, c.fma, c.want)
			}
			// each element its own operands (not one register's, 8 times)
			ops := map[string]bool{}
			for _, m := range regexp.MustCompile(c.fma+`\s*%\w+,\s*([^;]*);`).FindAllStringSubmatch(ptx, -1) {
				ops[m[1]] = true
			}
			if len(ops) != c.want {
				t.Errorf("%s %v %s: %d distinct operand lists of %s, want %d", arch, c.d, c.form, len(ops), c.fma, c.want)
			}
			for _, re := range c.never {
				if n := count(ptx, re); n > 0 {
					t.Errorf("%s %v %s: %d of %s, want none", arch, c.d, c.form, n, re)
				}
			}
			if c.form == "ops" {
				for _, re := range []string{`mul\.rn\.f32`, `sub\.rn\.f32`} {
					if n := count(ptx, re); n != 8 {
						t.Errorf("%s exp2(x*rs - m): %d of %s, want 8", arch, n, re)
					}
				}
			}
		}
	}
}
