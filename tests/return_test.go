package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// A kernel's `return` ends the program instance wherever it stands among
// the kernel's (possibly nested) ifs and blocks: nothing after it runs, at
// any level. Each case has 8 programs; out starts at -1 and unchanged
// entries are the programs that returned before storing there. B is 4 and
// C is 6.
func TestKernelReturn(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		defines map[string]string
		out     []float64 // out[pid] after the run
		aux     []float64 // aux[pid] after the run, when the case checks it
	}{{
		// The reported shape: the return sits two ifs deep and the
		// store follows the outer if.
		name: "two deep",
		body: `
    if B > 3 {
        if pid >= B {
            return
        }
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, -1, -1, -1, -1},
	}, {
		name: "two deep, outer condition false",
		body: `
    if B > 5 {
        if pid >= B {
            return
        }
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, 4, 5, 6, 7},
	}, {
		name: "three deep",
		body: `
    if B > 3 {
        if C > 5 {
            if pid >= B {
                return
            }
        }
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, -1, -1, -1, -1},
	}, {
		name: "three deep, statements at every level",
		body: `
    v := 1.0
    if pid >= 2 {
        v = 2.0
        if B > 3 {
            v = v + 10.0
            if pid >= B {
                store(aux + pid, 50.0)
                return
            }
            v = v + 100.0
            store(aux + pid, v)
        }
        v = v + 1000.0
    }
    store(out + pid, v)`,
		out: []float64{1, 1, 1112, 1112, -1, -1, -1, -1},
		aux: []float64{-1, -1, 112, 112, 50, 50, 50, 50},
	}, {
		name: "in an else",
		body: `
    if pid < B {
        store(aux + pid, 2.0)
    } else {
        return
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, -1, -1, -1, -1},
		aux: []float64{2, 2, 2, 2, -1, -1, -1, -1},
	}, {
		name: "in a nested else",
		body: `
    if pid > 0 {
        if pid < B {
            store(aux + pid, 2.0)
        } else {
            return
        }
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, -1, -1, -1, -1},
		aux: []float64{-1, 2, 2, 2, -1, -1, -1, -1},
	}, {
		name: "in an else if",
		body: `
    if pid == 1 {
        store(aux + pid, 2.0)
    } else if pid >= B {
        return
    } else {
        store(aux + pid, 3.0)
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, -1, -1, -1, -1},
		aux: []float64{3, 2, 3, 3, -1, -1, -1, -1},
	}, {
		name: "in both branches, nested",
		body: `
    if pid >= 2 {
        if pid >= B {
            store(aux + pid, 5.0)
            return
        } else {
            return
        }
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, -1, -1, -1, -1, -1, -1},
		aux: []float64{-1, -1, -1, -1, 5, 5, 5, 5},
	}, {
		name: "in both branches, top level",
		body: `
    if pid >= B {
        store(aux + pid, 5.0)
        return
    } else {
        return
    }
    store(out + pid, load(x + pid))`,
		out: []float64{-1, -1, -1, -1, -1, -1, -1, -1},
		aux: []float64{-1, -1, -1, -1, 5, 5, 5, 5},
	}, {
		name: "in a block",
		body: `
    if pid >= B {
        {
            store(aux + pid, 5.0)
            return
        }
    }
    store(out + pid, load(x + pid))`,
		out: []float64{0, 1, 2, 3, -1, -1, -1, -1},
		aux: []float64{-1, -1, -1, -1, 5, 5, 5, 5},
	}, {
		name: "two nested returns in sequence",
		body: `
    n := 0.0
    if B > 3 {
        if pid >= C {
            return
        }
    }
    n = n + 1.0
    if C > 3 {
        if pid == 0 {
            return
        } else if pid >= B {
            store(aux + pid, n)
            return
        }
    }
    store(out + pid, load(x + pid) + n)`,
		out: []float64{-1, 2, 3, 4, -1, -1, -1, -1},
		aux: []float64{-1, -1, -1, -1, 1, 1, -1, -1},
	}, {
		// The then branch returns and its rest joins the else: a name the
		// else declares must not hide the outer one from what follows.
		name: "else scope",
		body: `
    v := 1.0
    if pid >= B {
        return
    } else {
        v := 2.0
        store(aux + pid, v)
    }
    store(out + pid, v)`,
		out: []float64{1, 1, 1, 1, -1, -1, -1, -1},
		aux: []float64{2, 2, 2, 2, -1, -1, -1, -1},
	}, {
		name: "else scope, else returns",
		body: `
    v := 1.0
    if pid < B {
        v := 2.0
        store(aux + pid, v)
    } else {
        return
    }
    store(out + pid, v)`,
		out: []float64{1, 1, 1, 1, -1, -1, -1, -1},
		aux: []float64{2, 2, 2, 2, -1, -1, -1, -1},
	}, {
		name:    "compile-time outer condition",
		body:    "\n    if K > 3 {\n        if pid >= B {\n            return\n        }\n    }\n    store(out + pid, load(x + pid))",
		defines: map[string]string{"K": "4"},
		out:     []float64{0, 1, 2, 3, -1, -1, -1, -1},
	}, {
		name:    "compile-time inner condition",
		body:    "\n    if pid >= B {\n        if K > 3 {\n            return\n        }\n        store(aux + pid, 5.0)\n    }\n    store(out + pid, load(x + pid))",
		defines: map[string]string{"K": "4"},
		out:     []float64{0, 1, 2, 3, -1, -1, -1, -1},
	}, {
		name:    "compile-time inner condition false",
		body:    "\n    if pid >= B {\n        if K > 3 {\n            return\n        }\n        store(aux + pid, 5.0)\n    }\n    store(out + pid, load(x + pid))",
		defines: map[string]string{"K": "2"},
		out:     []float64{0, 1, 2, 3, 4, 5, 6, 7},
		aux:     []float64{-1, -1, -1, -1, 5, 5, 5, 5},
	}, {
		name: "nested return, then a loop",
		body: `
    if B > 3 {
        if pid >= B {
            return
        }
    }
    s := 0.0
    for i := range 3 {
        s = s + load(x + pid)
    }
    store(out + pid, s)`,
		out: []float64{0, 3, 6, 9, -1, -1, -1, -1},
	}, {
		name: "inside an if inside a loop's body is outside the loop",
		body: `
    s := 0.0
    for i := range 3 {
        if pid == 0 {
            s = s + 1.0
        }
    }
    if pid >= 1 {
        if pid >= B {
            return
        }
    }
    store(out + pid, s)`,
		out: []float64{3, 0, 0, 0, -1, -1, -1, -1},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := tle.NewTensor(8)
			for i := range x.Data {
				x.Data[i] = float64(i)
			}
			out, aux := tletest.Filled(-1, 8), tletest.Filled(-1, 8)
			params := "x *f32, out *f32, aux *f32, B i32, C i32"
			if c.defines != nil {
				params += ", K const i32"
			}
			src := "kernel k(" + params + ") {\n    pid := program_id(0)" + c.body + "\n}\n"
			err := run(t, src, c.defines, [3]int{8, 1, 1}, map[string]any{"x": x, "out": out, "aux": aux, "B": 4, "C": 6})
			require.NoError(t, err, src)
			require.Equal(t, c.out, out.Data, "out\n%s", src)
			if c.aux != nil {
				require.Equal(t, c.aux, aux.Data, "aux\n%s", src)
			}
		})
	}
}

// A helper's `return` returns from the helper (helpers are inlined): the
// calling kernel goes on after the call.
func TestHelperReturnReturnsFromHelper(t *testing.T) {
	x := tle.NewTensor(8)
	for i := range x.Data {
		x.Data[i] = float64(i)
	}
	out, aux := tletest.Filled(-1, 8), tletest.Filled(-1, 8)
	err := run(t, `
func put(p *f32, v f32) {
    store(p, v)
    return
}

func twice(v f32) f32 {
    return v * 2.0
}

kernel k(x *f32, out *f32, aux *f32, B i32) {
    pid := program_id(0)
    if B > 3 {
        if pid >= B {
            put(aux + pid, twice(1.5))
        }
    }
    put(out + pid, twice(load(x + pid)))
}`, nil, [3]int{8, 1, 1}, map[string]any{"x": x, "out": out, "aux": aux, "B": 4})
	require.NoError(t, err)
	require.Equal(t, []float64{0, 2, 4, 6, 8, 10, 12, 14}, out.Data)
	require.Equal(t, []float64{-1, -1, -1, -1, 3, 3, 3, 3}, aux.Data)
}

// A return the lowering cannot place is an error at its position, never
// dropped: inside a for loop (the checker), and in a helper, one that more
// of the helper follows (the lowering's limit).
func TestReturnErrors(t *testing.T) {
	for _, c := range []struct{ src, err string }{{
		src: `
kernel k(out *f32, n i32) {
    pid := program_id(0)
    for i := range n {
        if pid >= i {
            return
        }
        store(out + i, 1.0)
    }
}`,
		err: "t.tle:6:13: error: return is not allowed inside a for loop",
	}, {
		src: `
kernel k(out *f32, n i32) {
    for i := 0; i < n; i += 1 {
        store(out + i, 1.0)
        return
    }
}`,
		err: "t.tle:5:9: error: return is not allowed inside a for loop",
	}, {
		src: `
func put(p *f32, v f32) {
    if v > 1.0 {
        return
    }
    store(p, v)
}

kernel k(out *f32) {
    put(out, 2.0)
}`,
		err: "t.tle:4:9: error: a helper returns only at its end (its last statement, or the branches of a final if/else): more of the helper follows this return",
	}, {
		src: `
func h(c i1, d i1, a f32) f32 {
    if c {
        if d {
            return a
        }
        a = a * 2.0
    }
    return a
}

kernel k(out *f32) {
    store(out, h(program_id(0) > 0, program_id(0) > 1, 1.0))
}`,
		err: "t.tle:5:13: error: a helper returns only at its end (its last statement, or the branches of a final if/else): more of the helper follows this return",
	}} {
		prog, err := tle.Parse("t.tle", []byte(c.src))
		if err == nil {
			var k *tle.Kernel
			k, err = prog.Kernel("k")
			if err == nil {
				_, err = k.IR(tle.CompileOptions{})
			}
		}
		require.ErrorContains(t, err, c.err, c.src)
	}
}

// A constant a helper returns takes the declared result dtype, not its
// default one: 3000000000 is no i32 and 1<<40 no i32 either, so neither
// may pass through one (they did, and came back wrapped).
func TestHelperReturnConstant(t *testing.T) {
	out, big := tletest.Filled(-1, 2), tletest.Filled(-1, 1)
	err := run(t, `
func three_billion() f32 { return 3000000000 }

func half() f16 { return 0.5 }

func tera() i64 { return 1 << 40 }

kernel k(out *f32, big *i64) {
    store(out, three_billion())
    store(out + 1, cast(half(), f32))
    store(big, tera())
}`, nil, [3]int{1, 1, 1}, map[string]any{"out": out, "big": big})
	require.NoError(t, err)
	require.Equal(t, []float64{3e9, 0.5}, out.Data)
	require.Equal(t, []float64{1 << 40}, big.Data)
}

// TestHelperPointerResult: a helper may return pointers (the checker
// accepted `func f(p *f32) *f32`, the lowering refused it): a scalar global
// pointer, a tile of them, and a shared-memory pointer from local_ptr keep
// their space and shape; returning an f32 where a *f32 is declared is the
// checker's error at the value.
func TestHelperPointerResult(t *testing.T) {
	x, out := tletest.Filled(0, 32), tletest.Filled(-1, 48)
	for i := range x.Data {
		x.Data[i] = float64(i)
	}
	err := run(t, `
func next(p *f32) *f32 { return p + 1 }

func row(p *f32, i i32) *f32 { return p + i*4 + arange(0, 4) }

kernel k(x *f32, out *f32) {
    r := arange(0, 16)
    store(out + r, load(next(x) + r))
    store(row(out, 4), load(row(x, 2)))
    buf := alloc([16], f32)
    store(buf, load(x + 16 + r))
    store(out + 32 + r, load(next(local_ptr(buf, r)), mask: r < 15, other: 0))
}`, nil, [3]int{1, 1, 1}, map[string]any{"x": x, "out": out})
	require.NoError(t, err)
	for i := range 16 {
		require.Equal(t, float64(i+1), out.Data[i], "out[%d]", i) // next(x)
		if i < 4 {
			require.Equal(t, float64(8+i), out.Data[16+i], "out[%d]", 16+i) // row(out, 4) <- row(x, 2)
		}
		if i < 15 {
			require.Equal(t, float64(17+i), out.Data[32+i], "out[%d]", 32+i) // next(local_ptr(buf, r))
		}
	}
	_, err = tle.Parse("t.tle", []byte(`
func bad(p *f32) *f32 { return load(p) }

kernel k(x *f32) {
    store(x, load(bad(x)))
}`))
	require.ErrorContains(t, err, "t.tle:2:32: error: cannot return f32 as *f32 from func bad")
}
