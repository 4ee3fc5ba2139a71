package ir

// Kind names an operation; it is also the op's spelling in the text form.
// Each kind has a row in the op table (optable.go) that says how many
// operands, results and regions it has, its attributes, whether it is pure
// or element-wise, and how Verify checks it.
type Kind string

// The operations of the tile IR. Element-wise ops take operands of one type
// (scalars, or tiles of one shape: the lowering inserts splat/broadcast
// first, as Triton does) and give a result of that shape. Integer and float
// behaviour follows the element dtype. Comments give operands, then
// attributes, then results.
const (
	// ---- constants, indices, program ids
	OpConstant    Kind = "constant"     // () {value: int64|float64|bool} -> scalar or tile (splat)
	OpProgramID   Kind = "program_id"   // () {axis} -> i32
	OpNumPrograms Kind = "num_programs" // () {axis} -> i32
	OpArange      Kind = "arange"       // () {start, end} -> [end-start]i32

	// ---- shapes
	OpSplat      Kind = "splat"       // (scalar) -> tile
	OpBroadcast  Kind = "broadcast"   // (tile) -> tile; same rank, size-1 dims stretched
	OpExpandDims Kind = "expand_dims" // (tile) {axis} -> tile with a size-1 dim inserted
	OpReshape    Kind = "reshape"     // (tile) -> tile of the same number of elements (row-major)
	OpTrans      Kind = "trans"       // (tile) {perm: []int64} -> permuted tile
	// (src, index) {axis} -> tile of index's shape, src's dtype: out[..., i, ...]
	// = src[..., index[..., i, ...], ...] along axis (Triton's gather); index
	// an integer tile of src's rank and shape but along axis; an index out of
	// [0, src's size along axis) is an interpreter error
	OpGather Kind = "gather"
	// (x) {axis, mask} -> x's type: out[..., i, ...] = x[..., i^mask, ...]
	// along axis (its size a power of two, 0 < mask < it): the exchange of a
	// bitonic sort's compare-and-swap step (frontend/lower/sort.go)
	OpButterfly Kind = "butterfly"
	OpJoin      Kind = "join"  // (a, b) -> tile of a's shape with a last dim of 2: [..., 0] is a, [..., 1] is b
	OpSplit     Kind = "split" // (x) -> (x[..., 0], x[..., 1]): x's last dim is 2, the results drop it
	OpFlip      Kind = "flip"  // (tile) {axis} -> the tile reversed along axis
	// (tile) {starts: []int64} -> the sub-tile of the result's shape whose
	// first element is the operand's at starts (x[lo:hi] with known bounds)
	OpExtractSlice Kind = "extract_slice"

	// ---- element-wise arithmetic
	OpAdd    Kind = "add"
	OpSub    Kind = "sub"
	OpMul    Kind = "mul"
	OpDiv    Kind = "div" // integer division truncates toward zero
	OpRem    Kind = "rem" // C remainder (sign of the dividend)
	OpMin    Kind = "min" // minimum; float: the non-NaN operand wins
	OpMax    Kind = "max"
	OpAnd    Kind = "and" // bitwise (logical on i1)
	OpOr     Kind = "or"
	OpXor    Kind = "xor"
	OpShl    Kind = "shl"
	OpShr    Kind = "shr" // arithmetic for signed, logical for unsigned
	OpNeg    Kind = "neg"
	OpNot    Kind = "not" // bitwise not (logical on i1)
	OpCmp    Kind = "cmp" // (a, b) {pred: lt|le|gt|ge|eq|ne} -> i1 of the operands' shape
	OpSelect Kind = "select"
	OpCast   Kind = "cast"   // (x) -> the result type's dtype; floats round to nearest even, float->int truncates
	OpAddPtr Kind = "addptr" // (ptr, offset) -> ptr + offset elements
	// (x) -> the result type's dtype holding x's bits unchanged (Triton's
	// cast(bitcast=True)): element dtypes of one width, no pointers, no i1
	OpBitcast Kind = "bitcast"
	// (x) -> x unchanged: Triton's multiple_of, max_contiguous and
	// max_constancy, facts for the axis analysis {divisibility,
	// contiguity, constancy: []int64, one per axis, each optional}; the
	// interpreter checks them
	OpAxisHint Kind = "axis_hint"
	// (p) -> i64 or u64: the address of a global pointer (Triton's
	// pointer-to-int cast); the interpreter's addresses are its own
	// (runtime/interp: a region id and a byte offset)
	OpPtrToInt Kind = "ptrtoint"
	// (x) -> a global pointer of the result type: an i64 or u64 address
	// back to a pointer (pointer tables, Triton's
	// int.to(pointer_type(T))); the interpreter accepts only addresses
	// its launch handed out
	OpIntToPtr Kind = "inttoptr"

	// ---- element-wise math on floats
	OpExp     Kind = "exp" // the GPU computes ex2.approx(x * log2 e)
	OpExp2    Kind = "exp2"
	OpLog     Kind = "log"
	OpLog2    Kind = "log2"
	OpSqrt    Kind = "sqrt"
	OpRsqrt   Kind = "rsqrt"
	OpSigmoid Kind = "sigmoid"
	OpTanh    Kind = "tanh"
	OpErf     Kind = "erf" // the GPU computes it with FMA polynomials and ex2.approx (backend/nvptx/erf.go)
	// the math library: the GPU computes each in f64 from f32 values (backend/nvptx/mathlib.go)
	OpSin    Kind = "sin"
	OpCos    Kind = "cos"
	OpTan    Kind = "tan"
	OpAsin   Kind = "asin"
	OpAcos   Kind = "acos"
	OpAtan   Kind = "atan"
	OpSinh   Kind = "sinh"
	OpCosh   Kind = "cosh"
	OpLog1p  Kind = "log1p"
	OpExpm1  Kind = "expm1"
	OpAtan2  Kind = "atan2"  // (y, x), as Triton and C
	OpPow    Kind = "pow"    // (x, y): x**y, C99 pow
	OpAbs    Kind = "abs"    // ints too
	OpFloor  Kind = "floor"  // exact: the GPU's cvt.rmi
	OpCeil   Kind = "ceil"   // exact: cvt.rpi
	OpTrunc  Kind = "trunc"  // exact: cvt.rzi
	OpRound  Kind = "round"  // exact: nearest, ties away from zero (C roundf, Go math.Round)
	OpDivRN  Kind = "div_rn" // (a, b) floats: IEEE division rounded to nearest even (div.rn), whatever Options.PreciseDiv
	OpUMulHi Kind = "umulhi" // (a, b) integers: the high half of the unsigned 2N-bit product (mul.hi.u32/u64)
	OpFMA    Kind = "fma"    // (a, b, c) -> a*b + c computed exactly, rounded once (f16, bf16, f32, f64)
	// f32 -> f32 rounded to tf32 (cvt.rna.tf32.f32: nearest, ties away from
	// zero; floats.RoundTF32): a dot's tf32x3 split (frontend/lower)
	OpRoundTF32 Kind = "round_tf32"

	// ---- memory
	OpLoad       Kind = "load"            // (ptr [, mask [, other]]) {async?: bool} -> tile/scalar of the pointee
	OpStore      Kind = "store"           // (ptr, value [, mask])
	OpAtomicRMW  Kind = "atomic_rmw"      // (ptr, value [, mask]) {kind: add|max|min|xchg|and|or|xor, sem?, scope?} -> old values
	OpAtomicCAS  Kind = "atomic_cas"      // (ptr, cmp, value [, mask]) {sem?, scope?} -> old values; sem: acq_rel|acquire|release|relaxed (none: relaxed), scope: gpu|cta|sys (none: gpu)
	OpDot        Kind = "dot"             // (a [M,K], b [K,N], acc [M,N]) -> acc type; f32 accumulation
	OpReduce     Kind = "reduce"          // (x) {axis, kind: sum|max|min|or|xor|combine} (or, xor: integers) -> tile of rank-1, or a scalar from rank 1; combine: region (a, b scalars of x's dtype) ends in yield of one; combine may take n same-shape operands (x0..xn-1) -> n results, the region (a0..an-1, b0..bn-1) yielding n
	OpScan       Kind = "scan"            // (x) {axis, kind: sum|prod|combine, reverse: bool} -> same type; combine: a region as reduce's, n operands -> n results as reduce's
	OpPrint      Kind = "print"           // (values...) {prefix: string}
	OpAssert     Kind = "assert"          // (cond) {msg: string}
	OpAssume     Kind = "assume"          // (cond) a scalar i1 promised to hold (Triton's assume): no code on the GPU, where the axis analysis reads cond == (x % n == 0) as x a multiple of n; the interpreter checks it
	OpCall       Kind = "call"            // (args...) {callee: string} -> results; removed by inlining
	OpFor        Kind = "for"             // (lb, ub, step, inits...) {while?: k, num_stages?, loop_unroll_factor?} -> finals; region (iv, iters...) ends in yield; with while, an iteration runs only while loop-carried i1 k is true
	OpIf         Kind = "if"              // (cond) -> results; regions then, else, each ending in yield
	OpYield      Kind = "yield"           // (values...) terminator of for/if regions
	OpReturn     Kind = "return"          // (values...) terminator of a function body
	OpAlloc      Kind = "alloc"           // ([init]) -> memdesc
	OpMemIndex   Kind = "memdesc_index"   // (buf, i) -> view of buf[i] (leading dim dropped); buf.slot(i)
	OpMemTrans   Kind = "memdesc_trans"   // (buf) {perm} -> permuted view; no data moves
	OpMemReshape Kind = "memdesc_reshape" // (buf) -> view of a row-major buf with its leading dims merged or split (innermost kept); no data moves
	OpLocalPtr   Kind = "local_ptr"       // (buf, idx0, idx1, ...) -> tile of shared pointers (indices share a shape)
	OpLocalLoad  Kind = "local_load"      // (buf) -> tile of the buffer's shape
	OpLocalStore Kind = "local_store"     // (buf, tile)

	// ---- mbarriers
	OpBarrierAlloc  Kind = "barrier_alloc"  // () {count} -> !barrier, or !barrier<slots> for an array
	OpBarrierIndex  Kind = "barrier_index"  // (bars, i) -> !barrier: element i of a barrier array
	OpBarrierArrive Kind = "barrier_arrive" // (b)
	OpBarrierWait   Kind = "barrier_wait"   // (b, phase)
	OpBarrierExpect Kind = "barrier_expect" // (b, bytes): one arrival expecting bytes of copy traffic
	OpBarrierPhase  Kind = "barrier_phase"  // (b) -> i32: the parity of b's current (incomplete) phase, the one a wait after the next arrivals passes

	// ---- pipes
	OpPipeAlloc   Kind = "pipe_alloc"   // () -> !pipe (capacity and fields in the type)
	OpPipeAcquire Kind = "pipe_acquire" // (pipe, i) -> writer slot; blocks until slot i%cap was released for i-cap
	OpPipeCommit  Kind = "pipe_commit"  // (pipe, i)
	OpPipeClose   Kind = "pipe_close"   // (pipe, i): commits slot i marked closed
	OpPipeWait    Kind = "pipe_wait"    // (pipe, i) -> reader slot; blocks until slot i was committed
	OpPipeRelease Kind = "pipe_release" // (pipe, i)
	OpSlotField   Kind = "slot_field"   // (slot) {name} -> memdesc of the field
	OpSlotClosed  Kind = "slot_closed"  // (slot) -> i1

	// ---- warp roles
	OpWarpSpecialize Kind = "warp_specialize" // region holding role ops, run concurrently
	OpRole           Kind = "role"            // {name, warps, regs, copy, copies} region; ends in yield

	// ---- bulk copies, descriptors, wgmma
	OpCopy      Kind = "copy"       // (src, dst, offsets... [, barrier]) {has_barrier}: desc->memdesc (TMA load) or memdesc->desc (TMA store)
	OpMakeDesc  Kind = "make_desc"  // (ptr, shape..., strides...) {block} -> !desc
	OpWgmma     Kind = "wgmma"      // (a, b, acc) {trans_a, trans_b} -> acc type
	OpWgmmaWait Kind = "wgmma_wait" // () {pending}

	// ---- clusters
	OpDeviceMesh         Kind = "device_mesh"         // () {dims: [x,y,z]} -> !mesh
	OpShardID            Kind = "shard_id"            // (mesh) {axis} -> i32
	OpRemote             Kind = "remote"              // (buf, rank, mesh) -> memdesc in the cluster space
	OpDistributedBarrier Kind = "distributed_barrier" // (mesh) {axis?: "device"|"cluster", group?: n}

	// ---- meshes across devices (device_mesh(device: n)); on the GPU, the device-mesh ABI (backend/nvptx/devicemesh.go)
	OpRemotePtr  Kind = "remote_ptr"  // (ptr, rank, mesh) -> ptr's type: the peer device's pointer into a symmetric buffer
	OpSignal     Kind = "signal"      // (ptr, rank, mesh, value) {op: "set"|"add"}: release at system scope, on the peer's flag
	OpSignalWait Kind = "signal_wait" // (ptr, value) {cmp}: wait until the local flag compares true to value; acquire at system scope

	// ---- programmatic dependent launch (sm_90+): per-thread, no values
	OpGridDepWait      Kind = "grid_dependency_wait" // (): wait for the prerequisite grids and their memory
	OpLaunchDependents Kind = "launch_dependents"    // (): this CTA lets the dependent grid be scheduled early

	// ---- CTA-wide barrier (Triton's debug_barrier), outside warp roles
	OpDebugBarrier Kind = "debug_barrier" // (): bar.sync 0

	// ---- warp votes and prefix counts (stream compaction): tile-level
	// semantics, lowered to vote.sync.ballot / popc / %lanemask_lt on the GPU
	OpBallot      Kind = "ballot"       // (mask [N]i1, N a multiple of 32) -> [N/32]u32: bit b of word w is mask[32w+b]
	OpPopc        Kind = "popc"         // (x) -> x's type: the number of set bits of each element (element-wise, integers but i1)
	OpPrefixCount Kind = "prefix_count" // (mask [N]i1) -> [N]i32: element i is the number of true elements before i

	// ---- escape hatch
	OpAsm Kind = "asm" // (args...) {template, constraints} -> result (GPU only)

	// ---- made by the GPU passes (package passes) after the
	// target-independent pipeline, on tiles that have layouts
	OpConvertLayout Kind = "convert_layout" // (x) -> x's type with another layout
	OpAsyncCopy     Kind = "async_copy"     // (ptrs, buf [, mask]) {ring_copy?: bool}: cp.async of a tile into a shared buffer
	OpAsyncCommit   Kind = "async_commit"   // (): closes the group of copies issued since the last one
	OpAsyncWait     Kind = "async_wait"     // () {pending}: waits until at most pending groups are in flight
)
