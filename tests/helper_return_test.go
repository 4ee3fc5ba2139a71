package tests

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// helperEnv is what the element at offset i of a TestHelperReturnIfElse
// case sees: its program's s (a runtime i32 scalar, -3 to 4 in a random
// order over the programs), xs and ys (the program's first x and y) and xmax
// (its largest x), its own x and y (a and b in the kernel), and K.
type helperEnv struct {
	i, s         int32
	a, b, xs, ys float32
	xmax         float32
	k            int32
}

// helperReturnKernel is the kernel every case of TestHelperReturnIfElse
// runs, on 8 programs of 16 elements, with the case's helpers before it and
// its body inside.
const helperReturnKernel = `
kernel k(x *f32, y *f32, n *i32, out *f32, outi *i32, K const i32) {
    pid := program_id(0)
    offs := pid*16 + arange(0, 16)
    a := load(x + offs)
    b := load(y + offs)
    s := load(n + pid)
    xs := load(x + pid*16)
    ys := load(y + pid*16)
    zf := zeros([16], f32)
    zi := zeros([16], i32)
`

// A helper with results may end in an if/else whose branches all return
// (section 8): nested, else-if chains, statements before the returns,
// tile and scalar results, several results, compile-time and runtime
// conditions. Each case's out (f32) and outi (i32), both starting at -1,
// must equal want's exactly, on random inputs.
func TestHelperReturnIfElse(t *testing.T) {
	cases := []struct {
		name  string
		funcs string
		body  string
		k     string // the binding of K (default 1)
		// want gives out's and outi's element (nil: that output stays -1).
		out, outi func(e helperEnv) float64
	}{{
		name: "if/else, runtime scalar condition, tile results",
		funcs: `
func pick(c i1, a f32, b f32) f32 {
    if c {
        return a
    } else {
        return b
    }
}`,
		body: `store(out + offs, pick(s > 0, a, b))`,
		out: func(e helperEnv) float64 {
			if e.s > 0 {
				return float64(e.a)
			}
			return float64(e.b)
		},
	}, {
		name: "if/else, scalar results, called on scalars and on tiles",
		funcs: `
func pick(c i1, a f32, b f32) f32 {
    if c {
        return a
    } else {
        return b
    }
}`,
		body: `store(out + offs, zf + pick(s > 1, xs, ys))
    store(outi + offs, cast(pick(s < 0, a, b) > 0.0, i32))`,
		out: func(e helperEnv) float64 {
			if e.s > 1 {
				return float64(e.xs)
			}
			return float64(e.ys)
		},
		outi: func(e helperEnv) float64 {
			v := e.b
			if e.s < 0 {
				v = e.a
			}
			if v > 0 {
				return 1
			}
			return 0
		},
	}, {
		name: "nested if/else in the then branch",
		funcs: `
func sel3(c i1, d i1, x f32, y f32, z f32) f32 {
    if c {
        if d {
            return x
        } else {
            return y
        }
    } else {
        return z
    }
}`,
		body: `store(out + offs, sel3(s > 0, s % 2 == 0, a, b, a * b))`,
		out: func(e helperEnv) float64 {
			switch {
			case e.s > 0 && e.s%2 == 0:
				return float64(e.a)
			case e.s > 0:
				return float64(e.b)
			}
			return float64(float32(e.a * e.b))
		},
	}, {
		name: "nested in both branches, three deep",
		funcs: `
func quad(s i32, a f32, b f32) f32 {
    if s > 0 {
        if s > 2 {
            if s == 4 {
                return a + b
            } else {
                return a - b
            }
        } else {
            return a
        }
    } else {
        if s == 0 {
            return b
        } else {
            return -a
        }
    }
}`,
		body: `store(out + offs, quad(s, a, b))`,
		out: func(e helperEnv) float64 {
			switch {
			case e.s == 4:
				return float64(float32(e.a + e.b))
			case e.s > 2:
				return float64(float32(e.a - e.b))
			case e.s > 0:
				return float64(e.a)
			case e.s == 0:
				return float64(e.b)
			}
			return float64(-e.a)
		},
	}, {
		name: "else-if chain ending in else, statements before each return",
		funcs: `
func grade(s i32, a f32, b f32) f32 {
    t := a + b
    if s < -1 {
        u := t * 2.0
        return u - a
    } else if s < 1 {
        return maximum(a, b)
    } else if s < 3 {
        v := a * b
        w := v + t
        return w
    } else {
        return -t
    }
}`,
		body: `store(out + offs, grade(s, a, b))`,
		out: func(e helperEnv) float64 {
			t := float32(e.a + e.b)
			switch {
			case e.s < -1:
				return float64(float32(float32(t*2) - e.a))
			case e.s < 1:
				return float64(max(e.a, e.b))
			case e.s < 3:
				return float64(float32(float32(e.a*e.b) + t))
			}
			return float64(-t)
		},
	}, {
		name: "a variable assigned in the branches, a block, a condition from a reduction",
		funcs: `
func acc(a f32, b f32) f32 {
    v := a
    if max(a, axis: 0) > 2.0 {
        v = v + b
        {
            return v * 2.0
        }
    } else {
        v = v - b
        return v
    }
}`,
		body: `store(out + offs, acc(a, b))`,
		out: func(e helperEnv) float64 {
			if e.xmax > 2.0 {
				return float64(float32(float32(e.a+e.b) * 2))
			}
			return float64(float32(e.a - e.b))
		},
	}, {
		name: "several results",
		funcs: `
func pick(c i1, a f32, k i32) (f32, i32) {
    if c {
        return a * 2.0, k + 1
    } else {
        return -a, k * 3
    }
}`,
		body: `v, w := pick(s >= 0, a, offs * s)
    store(out + offs, v)
    store(outi + offs, w)`,
		out: func(e helperEnv) float64 {
			if e.s >= 0 {
				return float64(float32(e.a * 2))
			}
			return float64(-e.a)
		},
		outi: func(e helperEnv) float64 {
			if e.s >= 0 {
				return float64(e.i*e.s + 1)
			}
			return float64(e.i * e.s * 3)
		},
	}, {
		name: "several results returned from a call to a helper",
		funcs: `
func divmod(a i32, b i32) (i32, i32) { return a / b, a % b }

func dm(c i1, a i32, b i32) (i32, i32) {
    if c {
        return divmod(a, b)
    } else {
        return b, a
    }
}`,
		body: `q, r := dm(s != 1, offs + 1, zi + s + 4)
    store(outi + offs, q*100 + r)`,
		outi: func(e helperEnv) float64 {
			a, b := e.i+1, e.s+4
			if e.s != 1 {
				return float64(a/b*100 + a%b)
			}
			return float64(b*100 + a)
		},
	}, {
		name: "constants in the branches take the declared dtypes",
		funcs: `
func sgn(v f32) f32 {
    if v > 0.0 {
        return 1
    } else if v < 0.0 {
        return -1
    } else {
        return 0
    }
}

func big(c i1) i64 {
    if c {
        return 1 << 40
    } else {
        return -3072
    }
}`,
		body: `store(out + offs, zf + sgn(xs) + sgn(ys))
    store(outi + offs, zi + cast(big(s > 0) / 1024, i32))`,
		out: func(e helperEnv) float64 {
			sgn := func(v float32) float32 {
				switch {
				case v > 0:
					return 1
				case v < 0:
					return -1
				}
				return 0
			}
			return float64(sgn(e.xs) + sgn(e.ys))
		},
		outi: func(e helperEnv) float64 {
			if e.s > 0 {
				return 1 << 30
			}
			return -3
		},
	}, {
		name: "i1 results, and a helper ending in if/else called from the branches of another",
		funcs: `
func pick(c i1, a f32, b f32) f32 {
    if c {
        return a
    } else {
        return b
    }
}

func either(c i1, d i1) i1 {
    if c {
        return d
    } else {
        return !d
    }
}

func pick2(c i1, d i1, a f32, b f32) f32 {
    if either(c, d) {
        return pick(c, a, b)
    } else {
        return pick(d, b, a * 3.0)
    }
}`,
		body: `store(out + offs, pick2(s > 0, s % 2 == 0, a, b))`,
		out: func(e helperEnv) float64 {
			c, d := e.s > 0, e.s%2 == 0
			either := d
			if !c {
				either = !d
			}
			switch {
			case either && c:
				return float64(e.a)
			case either:
				return float64(e.b)
			case d:
				return float64(e.b)
			}
			return float64(float32(e.a * 3))
		},
	}, {
		name: "tile result types ([W]i32, [W]f32)",
		funcs: `
const W = 16

func ramp(base i32) [W]i32 {
    return base + arange(0, W)
}

func fill(c i1) [W]f32 {
    if c {
        return full([W], 2.5, f32)
    } else {
        return zeros([W], f32) - 1.0
    }
}`,
		body: `store(out + offs, fill(s > 0) + a)
    store(outi + offs, ramp(s))`,
		out: func(e helperEnv) float64 {
			if e.s > 0 {
				return float64(float32(2.5) + e.a)
			}
			return float64(float32(-1) + e.a)
		},
		outi: func(e helperEnv) float64 { return float64(e.s + e.i%16) },
	}}
	for _, k := range []string{"1", "2", "3"} {
		cases = append(cases, struct {
			name      string
			funcs     string
			body      string
			k         string
			out, outi func(e helperEnv) float64
		}{
			name: "compile-time conditions, K=" + k,
			funcs: `
func pw(x f32, K const i32) f32 {
    if K > 2 {
        return x * x
    } else if K > 1 {
        return x + x
    } else {
        return x
    }
}

func pk(c i1, a f32, b f32, K const i32) f32 {
    if K > 1 {
        if c {
            return a
        } else {
            return b
        }
    } else {
        return a - b
    }
}`,
			body: `store(out + offs, pw(a, K) + pk(s > 0, a, b, K))`,
			k:    k,
			out: func(e helperEnv) float64 {
				var p, q float32
				switch {
				case e.k > 2:
					p = e.a * e.a
				case e.k > 1:
					p = e.a + e.a
				default:
					p = e.a
				}
				switch {
				case e.k > 1 && e.s > 0:
					q = e.a
				case e.k > 1:
					q = e.b
				default:
					q = e.a - e.b
				}
				return float64(float32(p + q))
			},
		})
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const progs, block = 8, 16
			r := rand.New(rand.NewPCG(7, uint64(ci)))
			x := tletest.Round(ir.F32, tletest.Randn(r, progs*block))
			y := tletest.Round(ir.F32, tletest.Randn(r, progs*block))
			n := make([]float64, progs)
			for i, p := range r.Perm(progs) {
				n[i] = float64(p - 3)
			}
			out, outi := tletest.Filled(-1, progs*block), tletest.Filled(-1, progs*block)
			k := c.k
			if k == "" {
				k = "1"
			}
			src := c.funcs + "\n" + helperReturnKernel + "    " + c.body + "\n}\n"
			err := run(t, src, map[string]string{"K": k}, [3]int{progs, 1, 1}, map[string]any{
				"x": tensorOf(x), "y": tensorOf(y), "n": tensorOf(n), "out": out, "outi": outi})
			require.NoError(t, err, src)
			wantOut, wantOuti := tletest.Filled(-1, progs*block).Data, tletest.Filled(-1, progs*block).Data
			for i := range progs * block {
				pid := i / block
				e := helperEnv{i: int32(i), s: int32(n[pid]), a: float32(x[i]), b: float32(y[i]),
					xs: float32(x[pid*block]), ys: float32(y[pid*block]), k: int32(k[0] - '0')}
				e.xmax = e.xs
				for j := range block {
					e.xmax = max(e.xmax, float32(x[pid*block+j]))
				}
				if c.out != nil {
					wantOut[i] = c.out(e)
				}
				if c.outi != nil {
					wantOuti[i] = c.outi(e)
				}
			}
			require.Equal(t, wantOut, out.Data, "out\n%s", src)
			require.Equal(t, wantOuti, outi.Data, "outi\n%s", src)
		})
	}
}

func tensorOf(data []float64) *tle.Tensor {
	t := tle.NewTensor(len(data))
	copy(t.Data, data)
	return t
}

// A helper without results may end in an if/else whose branches both
// return, or in an if whose only branch does: nothing follows those
// returns, so they return at the helper's end.
func TestHelperReturnIfElseNoResults(t *testing.T) {
	const n = 64
	r := rand.New(rand.NewPCG(9, 10))
	x := tletest.Round(ir.F32, tletest.Randn(r, n))
	out, outi := tletest.Filled(-1, n), tletest.Filled(-1, n)
	err := run(t, `
func put(p *f32, c i1, v f32) {
    if c {
        store(p, v)
        return
    } else {
        store(p, -v)
        return
    }
}

func put_if(p *i32, c i1, v i32) {
    if c {
        store(p, v)
        return
    }
}

kernel k(x *f32, out *f32, outi *i32) {
    pid := program_id(0)
    offs := pid*16 + arange(0, 16)
    put(out + offs, pid % 2 == 0, load(x + offs))
    put_if(outi + offs, pid > 1, offs)
}`, nil, [3]int{n / 16, 1, 1}, map[string]any{"x": tensorOf(x), "out": out, "outi": outi})
	require.NoError(t, err)
	for i := range n {
		want, wanti := -x[i], -1.0
		if i/16%2 == 0 {
			want = x[i]
		}
		if i/16 > 1 {
			wanti = float64(i)
		}
		require.Equal(t, want, out.Data[i], "out[%d]", i)
		require.Equal(t, wanti, outi.Data[i], "outi[%d]", i)
	}
}

// `return f(x)` where f returns several values returns them all, at the
// top level of a helper's body as in its branches.
func TestHelperReturnCall(t *testing.T) {
	out := tletest.Filled(-1, 4)
	err := run(t, `
func divmod(a i32, b i32) (i32, i32) { return a / b, a % b }

func fwd(a i32, b i32) (i32, i32) { return divmod(a, b) }

func fwd_paren(a i32, b i32) (i32, i32) { return (divmod(b, a)) }

kernel k(out *i32) {
    q, r := fwd(17, 5)
    store(out, q)
    store(out + 1, r)
    q2, r2 := fwd_paren(3, 23)
    store(out + 2, q2)
    store(out + 3, r2)
}`, nil, [3]int{1, 1, 1}, map[string]any{"out": out})
	require.NoError(t, err)
	require.Equal(t, []float64{3, 2, 7, 2}, out.Data)
}
