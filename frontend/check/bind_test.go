package check

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tlego/tle/frontend/ast"
)

// TestBinder binds argument lists the way a call writes them: "" is a
// positional argument, any other name a keyword.
func TestBinder(t *testing.T) {
	bind := func(b *Builtin, method bool, written ...string) (got []int, errs []BindError) {
		m := NewBinder(b.Params, b.Fields, method)
		for _, w := range written {
			a := &ast.Arg{}
			if w != "" {
				a.Name = &ast.Ident{Name: w}
			}
			i, err := m.Next(a)
			got, errs = append(got, i), append(errs, err)
		}
		return got, errs
	}
	ok := func(n int) []BindError { return make([]BindError, n) }

	load := LookupBuiltin("load") // ptr, mask:, other:, async: false
	got, errs := bind(load, false, "", "other", "mask")
	assert.Equal(t, []int{0, 2, 1}, got)
	assert.Equal(t, ok(3), errs)
	got, errs = bind(load, false, "ptr", "async")
	assert.Equal(t, []int{0, 3}, got)
	assert.Equal(t, ok(2), errs)
	_, errs = bind(load, false, "", "", "")
	assert.Equal(t, []BindError{BindOK, BindTooMany, BindTooManyMore}, errs)
	_, errs = bind(load, false, "mask", "")
	assert.Equal(t, []BindError{BindOK, BindPositionalAfterKeyword}, errs)
	_, errs = bind(load, false, "", "mask", "mask", "bogus")
	assert.Equal(t, []BindError{BindOK, BindOK, BindDuplicate, BindUnknownKeyword}, errs)

	copyOp := LookupBuiltin("copy") // src, dst, offsets..., barrier:
	got, errs = bind(copyOp, false, "", "", "", "", "barrier")
	assert.Equal(t, []int{0, 1, 2, 2, 3}, got)
	assert.Equal(t, ok(5), errs)
	_, errs = bind(copyOp, false, "", "", "offsets")
	assert.Equal(t, []BindError{BindOK, BindOK, BindUnknownKeyword}, errs)

	pipe := LookupBuiltin("pipe") // capacity:, field: T...
	got, errs = bind(pipe, false, "w", "capacity", "s", "w")
	assert.Equal(t, []int{FieldArg, 0, FieldArg, FieldArg}, got)
	assert.Equal(t, []BindError{BindOK, BindOK, BindOK, BindDuplicate}, errs)

	slot, _ := methodFor(&MemDesc{}, "slot") // buf (the receiver), i
	got, errs = bind(slot, true, "")
	assert.Equal(t, []int{1}, got)
	assert.Equal(t, ok(1), errs)
	_, errs = bind(slot, true, "buf")
	assert.Equal(t, []BindError{BindUnknownKeyword}, errs)
}
