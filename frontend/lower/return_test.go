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
