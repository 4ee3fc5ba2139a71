// Package nvptx lowers the tile IR to LLVM IR for the NVPTX target (through
// github.com/llir/llvm, the only package importing it) and turns that into PTX
// with llc-19 or libNVVM.
//
// # Pipeline
//
// The backend takes a module after the GPU rows of the pass table
// (passes.Table): dot-wgmma, layouts (passes.AssignLayouts: every tile has a
// distributed layout, every buffer a shared layout), pipeline
// (passes.PipelineLoops: cp.async software pipelining of dot operand loads),
// async-loads and smem-alloc (passes.AllocateShared: shared-memory offsets);
// Prepare runs them through the pass driver for callers without the tle
// package. EmitLLVM then prints one LLVM module:
// typed pointers (ptrTo builds every pointer type), the NVPTX triple and full
// datalayout, one kernel per IR kernel with !nvvm.annotations kernel and
// maxntidx = num_warps*32 (minctasm from the min_ctas_per_sm attribute), and
// the CTA's dynamic shared memory as `@global_smem = external addrspace(3)`
// whose size the launcher passes (Kernel.SmemBytes, opted in above 48 KB).
//
// # Values
//
// Every thread holds the elements of a tile its layout gives it, in
// registers, one LLVM value per element in the order of the layout's linear
// form (gpu.LinearLayout): element coordinates are a per-thread base
// (computed once, in the entry block, from the lane and warp ids) plus a
// compile-time constant per register. Element-wise ops are unrolled per
// register; 16-bit floats and fp8 live as i16 / i8 and compute in f32
// (bf16 has no LLVM 7 type), rounding back with cvt.rn(.satfinite).
//
// Global accesses move up to 16 bytes per instruction where the layout's
// registers, the pointers' contiguity and alignment (gpu.AnalyzeAxes)
// allow it: plain LLVM vector loads/stores when unmasked, predicated inline
// asm `@p ld.global.v4.f32` with the `other` values as defaults when masked;
// when the mask may vary inside a group, a vector access guarded by "all in"
// plus element accesses for a partial group. Replicated elements are stored
// and updated atomically by their owning thread only.
//
// Shared memory is ordered by barriers the backend inserts from the byte
// ranges read and written since the last barrier (a write waits for reads of
// its bytes, a read for writes of its bytes; loop heads and joins are
// conservative): a view's bytes are its own where its offset is a
// constant, else its alloc's (a ring slot at a computed index), and a
// pointer from local_ptr points into its alloc's; other shared pointers may
// point anywhere. Layout conversions go through registers when every thread
// already holds its elements; when the data only moves between lanes of a
// warp (the same warp bases: an f32 accumulator cast to e4m3 and read as an
// 8-bit wgmma register a) by shfl.sync.idx rounds and one prmt.b32 a word
// (shuffle.go; the plan is emulated lane by lane and byte by byte before it
// is used); else through the op's padded scratch with vector accesses on
// both sides. Reductions combine registers, then butterfly
// shuffles over the lanes along the axis, then one shared-memory round for
// the warps along it; scans use shfl.up (shfl.down for reverse) and a
// shared-memory prefix over warps and repetitions. butterfly (the exchange
// of sort's bitonic network, gather.go) renames registers and does one
// shfl.sync.bfly a register when the mask's coordinate bits are register
// and lane bits of the layout (gpu.ButterflyMasks), else goes through the
// op's scratch as gather does: the source written row-major, each result
// element read where its index points (an out-of-range index reads element
// 0 of its line). The warp votes
// (votes.go) take their mask one element per thread, element 32w+b on lane
// b: ballot is one vote.sync.ballot.b32 per register; prefix_count adds,
// to popc(ballot & %lanemask_lt), the popcounts of the words before the
// element's (the thread's own registers' when one warp holds the tile,
// else one i32 per word through the op's scratch, read back whole): no
// shuffles, where cumsum scans with shfl.up. popc is popc.b32 / popc.b64. dot is mma.sync.m16n8k16
// (bf16/f16; fp8 converted to f16) with f32 accumulators; operands staged
// in swizzled shared memory are read with ldmatrix(.trans), emitted lazily at
// the k step that needs them; an a operand that is the (cast) accumulator of
// a previous dot comes straight from its registers. A tile copied between
// buffers, store(dst, load(src.T)), has ldmatrix's fragment as its layout
// (passes.MatrixCopyLayout) and moves with ldmatrix.x4.trans and
// stmatrix.x4, 8-bit types re-pairing their bytes with one prmt.b32 per
// register (matrix.go: each plan is checked lane by lane against the
// layout before it is used, addresses go through the swizzle), each
// stmatrix right after the ldmatrix it needs; a partial tile,
// where(m, load(src.T), 0), stays on that path. f32 -> bf16/f16 casts
// pack their register pairs with one cvt.rn.bf16x2.f32 (f16x2) each, which
// dot operands and vector stores use; f32 -> e4m3/e5m2 casts convert each
// pair with one cvt.rn.satfinite.e4m3x2.f32 whose bytes the registers are
// cut from, so four of them pack with one prmt.b32.
//
// Control flow is structured: for becomes header/body/exit blocks with one phi
// per loop-carried register, if a diamond with phis; 8-bit tiles go
// through them as i32 words of four registers (PTX has no 8-bit
// registers: a phi per byte would hold a 32-bit register each). f32 division is
// div.full.f32 as in Triton (Options.PreciseDiv for IEEE), exp is
// ex2.approx.ftz(x*log2 e), log lg2.approx(x)*ln 2.
//
// # TLE extensions (sync.go)
//
// Warp roles. warp_specialize places its roles one after the other from warp
// 0: a role with `warps: n` occupies n rounded up to a power of two and then
// to a warpgroup (4 warps), and runs its body on the first n-rounded-to-a-
// power-of-two of them; the padding warps skip to the join (the role is one
// logical thread of control, as in the interpreter, whatever warps run it).
// The CTA has as many warps as the roles occupy (gpu.SpecializedWarps;
// the num_warps attribute and Kernel.NumWarps, hence maxntid and the launch,
// say so), and code outside warp_specialize runs on all of them, laid out
// over the largest power of two of them (gpu.OutsideWarps; further warps
// hold copies and own nothing). Each role is a branch on the warp index;
// inside it the thread and warp ids are relative to the role's first warp,
// its tiles are laid out over its own warps (passes.AssignLayouts does so,
// after recomputing inside the role any recomputable tile defined before
// warp_specialize), values the CTA would hoist into the function's entry
// are hoisted into the role's entry, and wherever the CTA would use bar.sync
// 0 the role uses its named barrier `bar.sync k+1, 32*warps` (role k, ids
// 1..15). Each copy of a role with `copies: n` is a role op of its own, so
// it gets its own warps and named barrier as the next role would. Shared
// memory used inside roles never shares bytes with anything
// used while the roles run (passes.AllocateShared). The CTA synchronises
// (bar.sync 0) before and after the roles. `regs: R` becomes
// setmaxnreg.dec/inc.sync.aligned.u32 R, run by the role's whole warpgroup
// at its entry (.dec when R is below the kernel's entry cap 65536/threads,
// at most 248; a kernel using it gets minctasm 1 so ptxas fixes that cap).
//
// mbarriers and pipes are inline PTX (the same text through llc and libNVVM).
// Synchronisation counts per program or role: barrier(count: n) is
// mbarrier.init with n, done once by the elected thread (thread 0 of the
// CTA, or of the role), followed by fence.mbarrier_init.release.cluster and
// a barrier. One arrival (arrive, expect, commit, close, release) is a
// barrier of the threads running the code, so that all their shared-memory
// accesses are done, then the elected thread's mbarrier.arrive(.expect_tx)
// with its default release.cta semantics. A wait is every thread spinning
// on mbarrier.try_wait.parity (acquire.cta) in an LLVM loop. Ordinary
// shared-memory stores read by another role after such a handshake need no
// proxy fence. A pipe occupies gpu.LayoutPipe: the full and empty
// barriers of each slot (count 1), a closed flag per slot, and each field's
// ring of slots, every slot 128-byte aligned. acquire(i) waits on
// empty[i%cap] with parity ((i/cap)&1)^1 (the first round passes at once),
// wait(i) on full[i%cap] with parity (i/cap)&1; commit(i) arrives on full,
// release(i) on empty; s.NAME is the field's base + (i%cap) * slot stride.
// close(i) is commit(i) that first sets the slot's closed flag (commits
// clear it; both only for pipes that are ever closed, else s.closed is
// false), and acquires the slot itself when its block did not acquire i
// before, as the interpreter does.
//
// Clusters. device_mesh emits nothing (the launcher sets the cluster dims
// from it); shard_id(mesh, axis) reads %cluster_ctaid.{x,y,z}; remote(buf,
// rank) maps the buffer's shared address to CTA rank of the cluster with
// mapa.shared::cluster.u32, and the pointers local_ptr makes from such a
// view are i32 shared::cluster addresses accessed with
// ld/st.shared::cluster. distributed_barrier is barrier.cluster.arrive
// .release.aligned + barrier.cluster.wait.acquire.aligned, executed by every
// thread of the CTA (so not inside a role).
//
// Meshes across devices (devicemesh.go; docs/distributed.md has the ABI
// and why the PTX gives the memory model). A kernel with
// device_mesh(device: WORLD) takes three hidden parameters after its own
// (Kernel.Hidden: rank i32, heap_bases, a global pointer to WORLD i64
// bases of the ranks' symmetric heaps, and sync, the device-barrier area
// of DeviceSyncBytes(WORLD, programs); then the make_desc scratch).
// shard_id(mesh, "device") is rank. remote of a global pointer adds
// heap_bases[r] - heap_bases[rank] through ptrtoint/inttoptr, the bases
// loaded once in the entry block (up to 16 devices every one, a computed
// rank selecting among them with selp); the accesses stay ld/st.global.
// signal is a barrier of the threads running the code, then the elected
// thread's fence.proxy.alias and st.release.sys (set) or
// atom.add.release.sys (add) on the peer's flag; signal_wait the elected
// thread's ld.acquire.sys spin in an LLVM loop, fence.proxy.alias, then
// the barrier. A device barrier (axis "device" or none) is bar.sync 0,
// then lanes of warp 0, one per rank r of the group, increment their
// sent[p][r] counter, add 1 to rank r's recv[p][me] with
// atom.add.release.sys and spin with ld.acquire.sys until recv[p][r] -
// sent[p][r] >= 0, then bar.sync 0, and barrier.cluster when the cluster
// (of more than one CTA) is included. The cumulativity of bar.sync plus one
// thread's release/acquire at .sys scope is the PTX model's transitive
// causality order (no fence.acq_rel.sys is needed); fence.proxy.alias covers
// peers' mappings that alias their owner's addresses. Only axis "cluster",
// or a cluster, needs sm_90.
//
// wgmma (wgmma.go). The accumulator has layout gpu.MMAv3 (one warpgroup
// per 64 rows; a warpgroup loops over its 64-row blocks when M is larger
// than its warps cover). A register operand a is staged in shared memory by
// the layout pass; shared operands are read through matrix descriptors of
// buffers in gpu.WgmmaSharedLayout (rows of exactly one 128B / 64B / 32B
// swizzle span, or column blocks of one 128B span each (Shared.BlockCols),
// K-major or M/N-major; an M/N-major descriptor's LBO is the column-block
// stride, rows*128 bytes, and SBO 1024, as CUTLASS's MN-major SW128; wide K
// steps the start address into the next block), aligned to gpu.WgmmaAlign, with
// global_smem aligned to 1024). Before the first wgmma after ordinary
// shared-memory stores into the bytes of its operand buffers (their
// allocations' smem_offset ranges; a store whose buffer is unknown counts
// as every byte), every thread runs fence.proxy.async.shared::cta and the
// CTA (role) synchronises; then wgmma.fence, one
// wgmma.mma_async.m64nNk16 (k32 for fp8) per 64-row block and k step, and
// wgmma.commit_group. wgmma_wait(n) is wgmma.wait_group n threading the
// in-flight accumulators' registers through the asm; layout conversions of
// a wgmma result are placed after the wait that completes it, and its
// operand buffers stay allocated until then.
//
// Shared-memory views are a byte offset into global_smem with the view's
// MemDesc (shape, order, shared layout), which every access, descriptor
// and TMA box is computed from: memdesc_index adds the slot times the
// slot's bytes; memdesc_trans keeps the offset with a permuted order;
// memdesc_reshape (reshape(buf, shape): leading dimensions merged or
// split) keeps the offset and takes the layout the pass derived, which must
// be the source's seen in the new shape (gpu.ReshapeShared: same swizzle,
// its period dividing the rows of both shapes). A wgmma reading a reshaped
// view builds its descriptors from the view: two 64-row slots merged into
// [128, D] are one m64n128 instruction per k step, with SBO 8 rows of the
// swizzle span stepping across the slot boundary as inside a slot.
//
// Barriers and setmaxnreg are called as convergent inline asm (attribute
// group #0), so LLVM neither duplicates nor sinks them into divergent code.
//
// # TMA (tma.go)
//
// A desc[T, B...] parameter is a 128-byte CUtensorMap passed byval align 64
// ([128 x i8]* byval in the typed-pointer IR) and listed in a grid_constant
// annotation, so its address is the parameter's own (cvta.param), which
// cp.async.bulk.tensor takes. copy(d, buf, o...) with barrier: b is a TMA
// load issued by the elected thread, one
// cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes
// per box, with the coordinates innermost first (the language's offsets are
// outermost first); its bytes complete on b, whose expect the program
// gives. Earlier generic writes to the target's bytes get a
// fence.proxy.async and a barrier first (reads only a barrier). copy(buf, d,
// o...) is a TMA store: every thread fences (fence.proxy.async.shared::cta)
// and synchronises, then the elected thread issues
// cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group per box, commits and
// waits for the reads (cp.async.bulk.wait_group.read 0); later writes to the
// buffer wait for it with a barrier. The shared view's layout decides the
// map: unswizzled, or the 32/64/128B swizzle when its rows are exactly that
// wide and its XOR pattern is the hardware's (the allocator then aligns the
// buffer to 1024 bytes, gpu.TMASwizzleAlign; the backend checks the
// view's offset). Box dimensions are at most 256 elements: a longer
// outermost dimension is split into equal boxes (several instructions, one
// map); a 2-D view with a column-blocked 128B-swizzled layout is copied as
// one [rows, span] box per column block (column offsets +0, +span, ...,
// each into its block); an unswizzled row wider than 256 elements is an
// error naming the copy. Kernel.Descs records each desc parameter's
// dtype, block, box and swizzle; the runtime (tle.DescSpec) encodes a
// matching map from a device buffer, shape and strides (zero fill out of
// bounds, 128-byte L2 promotion). make_desc builds its map on the device
// (tma.go): the kernel takes a hidden global scratch parameter
// (Kernel.ScratchBytes per program), the first warp assembles the map in
// shared memory with tensormap.replace, copies it out with
// tensormap.cp_fenceproxy and acquires it; llc then writes PTX 8.3.
//
// # Toolchains
//
// Toolchain is implemented by LLC (llc-19 -O3 -mcpu=sm_90a -mattr=+ptx80,
// +ptx83 for tensor-map instructions; a
// failure names the command line and keeps the .ll) and NVVM (libNVVM through
// the NVVMCompiler interface, which runtime/cuda implements; the IR is first
// rewritten into libNVVM's LLVM 7 dialect by ToNVVMDialect). Select picks
// one by name or, for "auto", llc when installed and libNVVM otherwise, and
// says why.
package nvptx
