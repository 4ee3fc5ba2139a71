package tutorials

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// pingpongDefs are the bindings the ping-pong test runs.
var pingpongDefs = map[string]string{"ITERS": "6", "COLS": "32"}

// TestPingpong runs the ping-pong consumers (a role with copies: 2) against
// a float64 reference: each copy's half of the rows, the order of the
// copies' turns, and the store only copy 0 makes.
func TestPingpong(t *testing.T) {
	k := kernel(t, "pingpong.tle", "pingpong")
	r := rand.New(rand.NewPCG(41, 42))
	const programs, iters, cols = 3, 6, 32
	for _, dev := range devices(t, "pingpong") {
		x := round(ir.F32, randn(r, programs*iters*128*cols))
		scale := round(ir.F32, randn(r, iters))
		out := poison(programs * 128 * cols)
		order := tletest.Filled(-1, programs*2*iters)
		total := tletest.Filled(-1, programs)
		err := k.Run(dev, [3]int{programs, 1, 1}, tle.CompileOptions{Defines: pingpongDefs},
			map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "scale": &tle.Tensor{Shape: []int{iters}, Data: scale},
				"out": out, "order": order, "total": total})
		require.NoError(t, err, dev.Name())
		want := make([]float64, programs*128*cols)
		for p := range programs {
			for it := range iters {
				for i := range 128 * cols {
					want[p*128*cols+i] += x[(p*iters+it)*128*cols+i] * scale[it]
				}
			}
		}
		require.Less(t, relRMS(out.Data, want), 1e-6, dev.Name())
		for p := range programs {
			for j := range 2 * iters {
				require.Equal(t, float64(j), order.Data[p*2*iters+j], "%s: program %d, turn %d (iteration %d, copy %d)", dev.Name(), p, j, j/2, j%2)
			}
			require.Equal(t, float64(iters), total.Data[p], dev.Name())
		}
	}
}

// TestPingpongCopies checks the lowering of copies: the consumer is two
// role ops, copy 0 and copy 1, and only copy 0 has the store of total that
// its `if role_index() == 0` guards; on the GPU each copy is its own
// warpgroup with its own named barrier.
func TestPingpongCopies(t *testing.T) {
	k := kernel(t, "pingpong.tle", "pingpong")
	m, err := k.IR(tle.CompileOptions{Defines: pingpongDefs})
	require.NoError(t, err)
	var consumers []*ir.Op
	m.Func("pingpong").Walk(func(op *ir.Op) {
		if op.Kind == ir.OpRole && op.Attrs.String("name") == "consumer" {
			consumers = append(consumers, op)
		}
	})
	require.Len(t, consumers, 2)
	stores := func(role *ir.Op) (n int) {
		role.Regions[0].Walk(func(op *ir.Op) {
			if op.Kind == ir.OpStore {
				n++
			}
		})
		return n
	}
	for k, c := range consumers {
		i, n := ir.RoleCopy(c)
		require.Equal(t, []int{k, 2}, []int{i, n})
		require.Equal(t, int64(4), c.Attrs.Int("warps", 0))
	}
	// order and out in both; total in copy 0 only
	require.Equal(t, 3, stores(consumers[0]))
	require.Equal(t, 2, stores(consumers[1]))
	// the load role on warps 0-3 (named barrier 1, one warp active), and
	// a warpgroup for each copy, warps 4-7 and 8-11 (barriers 2 and 3)
	art, err := k.Build(tle.CompileOptions{Defines: pingpongDefs}, tle.GPUOptions{}, "ll")
	require.NoError(t, err)
	for _, bar := range []string{"bar.sync 1, 32;", "bar.sync 2, 128;", "bar.sync 3, 128;"} {
		require.Contains(t, art.LLVMIR, bar)
	}
	// warp < 4; 4 <= warp < 8; 8 <= warp < 12
	for _, cmp := range []string{`ult i32 %\w+, 4`, `uge i32 %\w+, 4`, `ult i32 %\w+, 8`, `uge i32 %\w+, 8`, `ult i32 %\w+, 12`} {
		require.Regexp(t, `icmp `+cmp+`\n`, art.LLVMIR, "the warp ranges of the roles")
	}
	require.Contains(t, art.LLVMIR, `!"maxntidx", i32 384}`)
}

// TestPingpongPTX compiles the ping-pong kernel with llc-19: setmaxnreg
// for each role's warpgroups, a named barrier for each copy, and copy 1's
// code has no store of total: the kernel's only 64-bit global store is
// copy 0's.
func TestPingpongPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "pingpong.tle", "pingpong")
	b, err := k.Compile(tle.CompileOptions{Defines: pingpongDefs}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Regexp(t, tletest.PTXLine(`setmaxnreg\.inc\.sync\.aligned\.u32 232;`), b.PTX)
	require.Regexp(t, tletest.PTXLine(`setmaxnreg\.dec\.sync\.aligned\.u32 40;`), b.PTX)
	for _, id := range []string{"2", "3"} {
		require.Regexp(t, tletest.PTXLine(`bar\.sync `+id+`, 128;`), b.PTX)
	}
	stores := regexp.MustCompile(`(?m)^\s+(@!?%p\w* )?st\.global\.[bus]64\s.*$`).FindAllString(b.PTX, -1)
	require.Len(t, stores, 1, "64-bit stores (of total, by copy 0 only):\n%s", strings.Join(stores, "\n"))
}
