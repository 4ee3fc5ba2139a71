package gpu

import (
	"github.com/tlego/tle/ir"
)

// OpConvertLayout changes the layout of a tile: (x) -> x's type with another
// layout. The layout passes insert it where two layouts meet; the backend
// lowers it to register moves when every thread already holds its elements,
// and through shared memory otherwise.
const OpConvertLayout ir.Kind = "convert_layout"

// Ops of the software pipeline (cp.async), created by PipelineLoops.
const (
	// OpAsyncCopy (ptrs, buf [, mask]) copies a tile of global memory into a
	// shared buffer view asynchronously (cp.async); masked-off elements are
	// zero-filled. It completes at an OpAsyncWait.
	OpAsyncCopy ir.Kind = "async_copy"
	// OpAsyncCommit () closes the group of copies issued since the last one.
	OpAsyncCommit ir.Kind = "async_commit"
	// OpAsyncWait () {pending} waits until at most pending groups of this
	// thread are in flight; the next shared read is preceded by a barrier.
	OpAsyncWait ir.Kind = "async_wait"
)
