// Package interp is the CPU interpreter: a real device of the TLE-Go runtime
// (like Triton's interpreter mode) and the project's checker of kernel
// semantics. It executes a kernel of an *ir.Module on every program instance
// (CTA) of a grid, in parallel across cores.
//
// # API
//
//	b := interp.FromFloat64(ir.F32, xs)         // device memory (rounded to the dtype)
//	err := interp.Launch(m, "vector_add", [3]int{n / 1024, 1, 1},
//	        []interp.Arg{x, y, out, int64(n)}, interp.Options{})
//	ys := out.Float64()                          // read back
//
// A Buffer is an array of one dtype held in that dtype (f32 as float32,
// bf16 and f16 as uint16 bits, fp8 as uint8 bits, integers in their width;
// see Buffer): NewBuffer, FromFloat64 (each element rounded to the dtype),
// FromInt64, FromBytes (raw little-endian storage, bf16 and fp8 as bit
// patterns), and FromSlice, which makes the buffer from a Go slice of the
// dtype's type (SliceType: []float32 for f32, []uint16 for bf16, ...)
// without a copy, so that the kernel's stores land in the caller's slice;
// read back with Float64, Int64 or Bytes (copies) or Slice (the storage
// itself). Launch arguments (Arg) are *Buffer for pointer parameters, Go
// integers, floats or bools for scalar parameters, and *Desc (buffer, offset,
// shape, strides; the block comes from the parameter's type) for `!desc`
// parameters. Arguments are checked against the signature (count, kinds,
// dtypes) and errors name the parameter. Options set the worker count
// (0 = GOMAXPROCS), the *diag.File that positions errors, the writer of
// `print`, and the watchdog timeout.
//
// Errors are *diag.Diagnostic values positioned at the op that failed
// (FILE:LINE:COL: error: ...), naming the program instance and role. A launch
// stops at its first error: workers take no more CTAs, running goroutines
// stop at their next op and blocked ones wake up. When several CTAs fail,
// the error at the earliest source position (then the lowest CTA) is
// returned.
//
// # Values
//
// Every SSA value has a slot in a per-CTA frame. Scalars and tiles are dense
// row-major arrays with no boxing: []float64 for float dtypes and []int64 for
// integers, i1 and pointers (a scalar is an array of one). Float elements
// always hold values exact in their dtype: every op rounds its result
// (ir.DType.Round semantics, with fast paths for f32, bf16 and f16);
// integers wrap to their width. A pointer is packed in an int64: a region id
// in the high 24 bits and a signed element offset in the low 40, so addptr is
// one addition; a region is a global buffer argument or a shared-memory view,
// with bounds and an optional pipe-slot guard. Arrays of dead values (last
// uses are computed once per launch) go back to a per-goroutine pool, so a
// steady-state loop allocates nothing.
//
// Some values are not written out (value.go, facts): a splat or constant
// tile read only by ops that stretch one-element operands (compile.go,
// scalarReaders) stays its scalar, as does a cmp mask known all on; an
// addptr of a uniform and a consecutive tile that only loads and stores read
// keeps its first pointer (factLazy). Ops record what they know of their
// elements (consecutive, uniform, all on), so a load or store whose lanes
// are known consecutive and on is one bounds check and a copy without a
// scan; any other access goes lane by lane with the lanes written out, and
// its faults name their lane.
//
// Numerics: `dot` / `wgmma` sum each output's products in float64 (the
// inputs already hold values of their dtypes, so products of 16-bit and
// 8-bit floats are exact), add the accumulator and round once to the result
// dtype (f32). f32 operands are first rounded to tf32 as the tensor cores
// read them (floats.RoundTF32: cvt.rna.tf32.f32, ties away from zero), so
// their products are exact too. `reduce` and `scan` accumulate in the result dtype, rounding
// after every step, in index order. Math functions are evaluated in float64
// and rounded to the result dtype.
//
// # TLE semantics
//
// Shared memory is per CTA: each `alloc` op has one buffer per CTA (static, as
// on the GPU, so a peer may address it through `remote` before or after the
// owner runs the alloc). memdesc_index / memdesc_trans are views; local_ptr
// gives pointers usable by load, store and atomics.
//
// Each role of a `warp_specialize` runs as its own goroutine sharing the
// CTA's frame: a role only writes the slots of the values it defines, and a
// role reading a value another role computes is rejected before the launch.
// Each copy of a role with `copies: n` is a role op of its own (attributes
// copy and copies, ir.RoleCopy), so it is a goroutine of its own, arrives as
// a role of its own, and messages name it: `role "consumer" copy 1 of
// program (0, 0, 0)`.
// Pipes follow the slot/phase protocol with real capacity: acquire(i) waits
// until slot i%cap was released for i-cap; wait(i) waits until index i was
// committed (or closed); slot fields are readable only between wait(i) and
// release(i) and writable only between acquire(i) and commit(i), checked on
// every access. mbarriers count arrivals and transaction bytes per phase
// (expect adds bytes and arrives; a copy with `barrier:` completes its
// bytes); wait(b, parity) returns once the phase of that parity completed
// (PTX try_wait.parity).
//
// A `device_mesh` divides the grid into clusters; the CTAs of a cluster run
// concurrently as goroutines, `remote` views a peer's buffer and
// `distributed_barrier` synchronises the cluster (writes before it are
// visible after it: the interpreter's memory is coherent).
//
// LaunchDevices runs a kernel on n simulated devices (devices.go): every
// CTA of every device is a goroutine of one synchronisation domain, each
// device with its own arguments; remote of a pointer into a symmetric
// allocation (NewSymmetric) reaches a peer's part, device barriers and
// signals synchronise across devices, and races and deadlocks between
// devices are reported naming the devices (docs/distributed.md).
//
// grid_dependency_wait and launch_dependents (programmatic dependent launch)
// do nothing: launches are sequential, each returning when all its programs
// finished, so the kernel a dependent launch waits for has always completed
// and its writes are visible before the dependent's first program starts.
//
// ballot, prefix_count and popc (votes.go) have their tile-level meaning,
// in the tile's element order: bit b of ballot word w is mask[32w+b],
// prefix_count's element i counts the true elements before i, popc counts
// the bits of each element's pattern in its dtype. They are the reference
// the GPU's warp votes (vote.sync.ballot, popc, %lanemask_lt) are tested
// against.
//
// Shared-memory races between roles (and between a cluster's CTAs) are
// errors too: every shared access is checked against the happens-before
// order of the kernel's barriers, pipes, role forks and joins and
// distributed barriers, with vector clocks (race.go).
//
// Deadlocks are errors, never hangs. All goroutines of a cluster share one
// synchronisation domain (a mutex and a condition variable guarding its
// pipes, barriers and distributed barrier). A goroutine that must block
// registers a waiter (its condition and a description) and the domain
// counts its live goroutines; when every live goroutine is a waiter and no
// waiter's condition holds, nothing can make progress, and the launch fails
// with every waiter's role, op position, pipe / barrier, slot and phase.
// Options.Context bounds the rest: when it ends (a deadline, a cancel) every
// goroutine of the launch stops at its next op or loop iteration, and the
// launch fails saying how long it ran and which programs were still running.
// Options.Timeout (DefaultTimeout, 5 minutes, when the context has no
// deadline) is the same mechanism: a deadline on that context.
//
// Scalar arguments are range-checked against their parameter's dtype
// (CheckScalar), never wrapped.
//
// `asm` is rejected before the launch ("asm is GPU-only"), as is a `call`
// that was not inlined.
package interp
