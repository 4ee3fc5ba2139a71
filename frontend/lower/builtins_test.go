package lower

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/ir"
)

// TestEveryBuiltinLowers checks the lowerings against the builtin table:
// every row has one (an alias row, that of the builtin it aliases), and
// every lowering is a row's.
func TestEveryBuiltinLowers(t *testing.T) {
	rows := map[string]bool{}
	for _, b := range check.Builtins() {
		rows[b.CallName()] = true
		assert.NotNil(t, lowerings[loweringKey(b)], "%s has no lowering", b.CallName())
		if b.Recv == "" {
			assert.True(t, IsBuiltin(b.Name), b.Name)
		}
	}
	for key := range lowerings {
		assert.True(t, rows[key], "lowering %s is no builtin's", key)
	}
}

// TestKeywordArguments lowers calls that name their arguments as the
// builtin table does, methods included (the lowering once bound the slot
// and pipe methods' i by a name of its own).
func TestKeywordArguments(t *testing.T) {
	src := `kernel k(x *f32, out *f32) {
    buf := alloc(dtype: f32, shape: [2, 64])
    r := arange(end: 64, start: 0)
    store(buf.slot(i: 0), load(ptr: x + r))
    pp := pipe(capacity: 2, w: [64]f32)
    w := pp.acquire(i: 0)
    store(w.w, load(buf.slot(i: 0)))
    pp.commit(i: 0)
    s := pp.wait(i: 0)
    store(value: cast(dtype: f32, x: load(s.w)), ptr: out + r)
    pp.release(i: 0)
}
`
	m := lowerSource(t, "kw.tle", src)
	text := ir.Print(m)
	for _, op := range []string{"memdesc_index", "pipe_acquire", "pipe_commit", "pipe_wait", "pipe_release"} {
		assert.True(t, strings.Contains(text, op), "no %s in\n%s", op, text)
	}
}
