package lower

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/ir"
)

// shape sketches a region's control flow: its ifs (with their result types,
// and `?` when the condition is the hidden returned flag), fors and stores.
func shape(b *ir.Block) string {
	var parts []string
	for _, op := range b.Ops {
		switch op.Kind {
		case ir.OpIf:
			s := "if"
			if op.Operands[0].Name == returned {
				s += "?"
			}
			for _, r := range op.Results {
				s += ":" + r.Type.String()
			}
			parts = append(parts, s+"{"+shape(op.Regions[0])+"}{"+shape(op.Regions[1])+"}")
		case ir.OpFor:
			parts = append(parts, "for{"+shape(op.Regions[0])+"}")
		case ir.OpStore:
			parts = append(parts, "store")
		}
	}
	return strings.Join(parts, " ")
}

// A kernel's return becomes data flow only where something follows it: the
// rest of its block joins the branch that does not return, and what follows
// an if holding a deeper return runs under the flag that if yields. A return
// in tail position adds nothing, so kernels whose returns need no flag lower
// as they did before it existed.
func TestLowerKernelReturn(t *testing.T) {
	for _, c := range []struct {
		name, body string
		k          string // K, when the case binds it
		want       string
	}{
		{"top level", `
    if pid >= B {
        return
    }
    store(out + pid, 1.0)`, "", "if{}{store}"},
		{"two deep", `
    if B > 3 {
        if pid >= B {
            return
        }
    }
    store(out + pid, 1.0)`, "", "if:i1{if:i1{}{}}{} if?{}{store}"},
		{"two deep, tail", `
    if B > 3 {
        if pid >= B {
            return
        }
        store(out + pid, 1.0)
    }`, "", "if{if{}{store}}{}"},
		{"three deep, statements between", `
    if B > 3 {
        if B > 4 {
            if pid >= B {
                return
            }
            store(out, 1.0)
        }
        store(out + 1, 1.0)
    }
    store(out + pid, 1.0)`, "", "if:i1{if:i1{if:i1{}{store}}{} if?{}{store}}{} if?{}{store}"},
		{"else", `
    if pid < B {
        store(out, 1.0)
    } else {
        return
    }
    store(out + pid, 1.0)`, "", "if{store store}{}"},
		{"nested else", `
    if B > 3 {
        if pid < B {
            store(out, 1.0)
        } else {
            return
        }
    }
    store(out + pid, 1.0)`, "", "if:i1{if:i1{store}{}}{} if?{}{store}"},
		{"block", `
    if pid >= B {
        {
            return
        }
    }
    store(out + pid, 1.0)`, "", "if:i1{}{} if?{}{store}"},
		{"compile-time outer condition", `
    if K > 3 {
        if pid >= B {
            return
        }
    }
    store(out + pid, 1.0)`, "4", "if:i1{}{} if?{}{store}"},
		{"compile-time outer condition false", `
    if K > 3 {
        if pid >= B {
            return
        }
    }
    store(out + pid, 1.0)`, "2", "store"},
		{"compile-time inner condition", `
    if pid >= B {
        if K > 3 {
            return
        }
        store(out, 1.0)
    }
    store(out + pid, 1.0)`, "4", "if:i1{}{} if?{}{store}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			params := "out *f32, B i32"
			var defs map[string]string
			if c.k != "" {
				params += ", K const i32"
				defs = map[string]string{"K": c.k}
			}
			src := "kernel k(" + params + ") {\n    pid := program_id(0)" + c.body + "\n}\n"
			f, err := parser.ParseFile("r.tle", []byte(src))
			require.NoError(t, err)
			_, errs := check.Check(f, check.Config{})
			require.Empty(t, errs)
			m, err := Kernel(f, "k", Options{Defines: defs})
			require.NoError(t, err)
			require.NoError(t, ir.Verify(m))
			require.Equal(t, c.want, shape(m.Func("k").Body), "%s\n%s", src, ir.Print(m))
		})
	}
}

// A helper with results that ends in an if/else whose branches all return
// lowers to ifs that yield the results of the branch taken, and a return of
// the outermost if's results: one result per declared result, at the type
// the returns give. A compile-time condition lowers only its branch.
func TestLowerHelperReturn(t *testing.T) {
	for _, c := range []struct {
		name, helper, call string
		want               string // the helper's shape, then its return's types
	}{
		{"if/else", `
func h(c i1, a f32, b f32) f32 {
    if c {
        return a
    } else {
        return b
    }
}`, "store(out + offs, h(pid > 0, v, v * 2.0))", "if:[16]f32{}{} return:[16]f32"},
		{"scalar", `
func h(c i1, a f32, b f32) f32 {
    if c {
        return a
    } else {
        return b
    }
}`, "store(out, h(pid > 0, 1.0, 2.0))", "if:f32{}{} return:f32"},
		{"nested", `
func h(c i1, d i1, a f32, b f32) f32 {
    if c {
        if d {
            return a
        } else {
            return b
        }
    } else {
        return a + b
    }
}`, "store(out + offs, h(pid > 0, pid > 1, v, v))", "if:[16]f32{if:[16]f32{}{}}{} return:[16]f32"},
		{"else if", `
func h(s i32, a f32) f32 {
    if s > 0 {
        return a
    } else if s < 0 {
        return -a
    } else {
        return 0
    }
}`, "store(out, h(pid, 1.0))", "if:f32{}{if:f32{}{}} return:f32"},
		{"several results, a variable assigned in a branch", `
func h(c i1, a f32, k i32) (f32, i32) {
    v := a
    if c {
        v = v * 2.0
        return v, k
    } else {
        return a, k + 1
    }
}`, "p, q := h(pid > 0, v, offs)\n    store(out + offs, p + cast(q, f32))", "if:[16]f32:[16]f32:[16]i32{}{} return:[16]f32:[16]i32"},
		{"compile-time condition", `
func h(x f32, K const i32) f32 {
    if K > 2 {
        return x * x
    } else {
        return x
    }
}`, "store(out + offs, h(v, 3) + h(v, 1))", "return:[16]f32"},
		{"no results", `
func h(p *f32, c i1, v f32) {
    if c {
        store(p, v)
        return
    } else {
        store(p, -v)
        return
    }
}`, "h(out + offs, pid > 0, v)", "if{store}{store} return"},
		{"straight line", `
func h(a f32) f32 { return a * 2.0 }`, "store(out + offs, h(v))", "return:[16]f32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := c.helper + `

kernel k(x *f32, out *f32) {
    pid := program_id(0)
    offs := arange(0, 16)
    v := load(x + offs)
    ` + c.call + "\n}\n"
			m := lowerSource(t, "h.tle", src)
			h := m.Func("h")
			require.NotNil(t, h, "%s", ir.Print(m))
			last := h.Body.Ops[len(h.Body.Ops)-1]
			require.Equal(t, ir.OpReturn, last.Kind)
			got := "return"
			for _, r := range last.Operands {
				got += ":" + r.Type.String()
			}
			if s := shape(h.Body); s != "" {
				got = s + " " + got
			}
			require.Equal(t, c.want, got, "%s\n%s", src, ir.Print(m))
			if strings.HasPrefix(c.want, "if:") {
				// The return returns what the outermost if yields.
				outer := h.Body.Ops[len(h.Body.Ops)-2]
				require.Equal(t, ir.OpIf, outer.Kind)
				require.Equal(t, outer.Results[len(outer.Results)-len(last.Operands):], last.Operands)
			}
		})
	}
}
