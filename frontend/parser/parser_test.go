package parser

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const sketch = `// kernels/tutorials/vector_add.tle
kernel vector_add(x *f32, y *f32, out *f32, n i32, BLOCK const i32) {
    pid := program_id(0)
    offs := pid*BLOCK + arange(0, BLOCK)
    m := offs < n
    a := load(x + offs, mask: m, other: 0)
    b := load(y + offs, mask: m, other: 0)
    store(out + offs, a + b, mask: m)
}

func softplus(x f32) f32 { return log(1 + exp(x)) }   // helpers are inlined; they may take tiles

const N = 4 * 2
kernel k2(d desc[bf16, 64, 128], p *bf16) {
    buf := alloc([3, 64, 128], bf16)
    pp := pipe(capacity: 4, w: [16, 128]bf16, v: [16, 128]bf16)
    x := (k + rk)[None, :]
    y := x[:, None].T
    for i := range 10 {
        acc = wgmma(a, b, acc, trans_b: true)
    }
    for i := 0; i < n; i += 2 {
        s := pp.acquire(i)
    }
    if a < b && c {
        print(1)
    } else if d {
        print(2.5e-3)
    } else {
        print("x")
    }
    warp_specialize {
        role load(warps: 4, regs: 40) {
            copy(d, buf.slot(0), 0, 0, barrier: b)
        }
        role mma(warps: 4, regs: 232) { wgmma_wait(0) }
    }
    a, b := 1, -2
}
`

func TestParseSketch(t *testing.T) {
	f, err := ParseFile("s.tle", []byte(sketch))
	require.NoError(t, err)
	require.Len(t, f.Decls, 4)
	require.Len(t, f.Comments, 2)
}

func TestSyntaxError(t *testing.T) {
	_, err := ParseFile("e.tle", []byte("kernel k() {\n  x := \n}\n"))
	require.Error(t, err)
	t.Log(err)
}

func TestPrintEBNF(t *testing.T) { t.Log("\n" + EBNF()) }
