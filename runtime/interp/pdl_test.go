package interp

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

// TestPDLProducerConsumer: a producer that triggers its dependents before
// writing, then a consumer that waits before reading, launched one after the
// other on the same buffers (the interpreter's launches are sequential, so
// both ops are no-ops and the consumer sees every write of the producer).
func TestPDLProducerConsumer(t *testing.T) {
	const n, block = 256, 64
	p := newKernel("producer", param("x", ptr(ir.F32)), param("y", ptr(ir.F32)))
	offs := p.bin(ir.OpAdd, p.splat(p.bin(ir.OpMul, p.pid(0), p.ci(block)), []int{block}), p.arange(block))
	v := p.load(p.addptr(p.arg(0), offs), nil, nil)
	p.Create(ir.OpLaunchDependents, nil, nil, nil)
	p.store(p.addptr(p.arg(1), offs), p.bin(ir.OpMul, v, p.splat(p.cf(2), []int{block})), nil)
	producer := p.ret()

	c := newKernel("consumer", param("y", ptr(ir.F32)), param("out", ptr(ir.F32)))
	offs = c.bin(ir.OpAdd, c.splat(c.bin(ir.OpMul, c.pid(0), c.ci(block)), []int{block}), c.arange(block))
	c.Create(ir.OpGridDepWait, nil, nil, nil)
	w := c.load(c.addptr(c.arg(0), offs), nil, nil)
	c.Create(ir.OpLaunchDependents, nil, nil, nil)
	c.store(c.addptr(c.arg(1), offs), c.bin(ir.OpAdd, w, c.splat(c.cf(1), []int{block})), nil)
	consumer := c.ret()
	require.NoError(t, ir.Verify(producer))
	require.NoError(t, ir.Verify(consumer))

	x, y, out := NewBuffer(ir.F32, n), NewBuffer(ir.F32, n), NewBuffer(ir.F32, n)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i) - 100
	}
	x.CopyFromFloat64(xs)
	grid := [3]int{n / block, 1, 1}
	require.NoError(t, launchT(t, producer, grid, x, y))
	require.NoError(t, launchT(t, consumer, grid, y, out))
	for i, got := range out.Float64() {
		require.Equal(t, 2*xs[i]+1, got, "out[%d]", i)
	}
}
