// Package nvptx lowers the tile IR to LLVM IR for the NVPTX target (through
// github.com/llir/llvm, the only package importing it) and turns that into PTX
// with llc-19 or libNVVM.
//
// # Pipeline
//
// The backend takes a module after passes.AssignLayouts (every tile has a
// distributed layout, every buffer a shared layout), passes.PipelineLoops
// (cp.async software pipelining of dot operand loads) and
// passes.AllocateShared (shared-memory offsets); Prepare runs the three for
// callers without the pass table. EmitLLVM then prints one LLVM module:
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
// form (passes.LinearLayout): element coordinates are a per-thread base
// (computed once, in the entry block, from the lane and warp ids) plus a
// compile-time constant per register. Element-wise ops are unrolled per
// register; 16-bit floats and fp8 live as i16 / i8 and compute in f32
// (bf16 has no LLVM 7 type), rounding back with cvt.rn(.satfinite).
//
// Global accesses move up to 16 bytes per instruction where the layout's
// registers, the pointers' contiguity and alignment (passes.AnalyzeAxes)
// allow it: plain LLVM vector loads/stores when unmasked, predicated inline
// asm `@p ld.global.v4.f32` with the `other` values as defaults when masked;
// when the mask may vary inside a group, a vector access guarded by "all in"
// plus element accesses for a partial group. Replicated elements are stored
// and updated atomically by their owning thread only.
//
// Shared memory is ordered by barriers the backend inserts from the byte
// ranges read and written since the last barrier (a write waits for reads of
// its bytes, a read for writes of its bytes; loop heads and joins are
// conservative). Layout conversions go through registers when every thread
// already holds its elements, else through the op's padded scratch with
// vector accesses on both sides. Reductions combine registers, then butterfly
// shuffles over the lanes along the axis, then one shared-memory round for
// the warps along it; scans use shfl.up (shfl.down for reverse) and a
// shared-memory prefix over warps and repetitions. dot is mma.sync.m16n8k16
// (bf16/f16; fp8 converted to f16) with f32 accumulators; operands staged
// in swizzled shared memory are read with ldmatrix(.trans), emitted lazily at
// the k step that needs them.
//
// Control flow is structured: for becomes header/body/exit blocks with one phi
// per loop-carried register, if a diamond with phis. f32 division is
// div.full.f32 as in Triton (Options.PreciseDiv for IEEE), exp is
// ex2.approx(x*log2 e), log lg2.approx(x)*ln 2.
//
// # TLE extensions (sync.go)
//
// Warp roles. warp_specialize places its roles one after the other from warp
// 0: a role with `warps: n` occupies n rounded up to a power of two and then
// to a warpgroup (4 warps), and runs its body on the first n-rounded-to-a-
// power-of-two of them; the padding warps skip to the join (the role is one
// logical thread of control, as in the interpreter, whatever warps run it).
// The CTA has as many warps as the roles occupy (passes.SpecializedWarps;
// the num_warps attribute and Kernel.NumWarps, hence maxntid and the launch,
// say so), and code outside warp_specialize runs on all of them, laid out
// over the largest power of two of them (passes.OutsideWarps; further warps
// hold copies and own nothing). Each role is a branch on the warp index;
// inside it the thread and warp ids are relative to the role's first warp,
// its tiles are laid out over its own warps (passes.AssignLayouts does so,
// after recomputing inside the role any recomputable tile defined before
// warp_specialize), values the CTA would hoist into the function's entry
// are hoisted into the role's entry, and wherever the CTA would use bar.sync
// 0 the role uses its named barrier `bar.sync k+1, 32*warps` (role k, ids
// 1..15). Shared memory used inside roles never shares bytes with anything
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
// proxy fence. A pipe occupies passes.LayoutPipe: the full and empty
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
// Barriers and setmaxnreg are called as convergent inline asm (attribute
// group #0), so LLVM neither duplicates nor sinks them into divergent code.
//
// # Toolchains
//
// Toolchain is implemented by LLC (llc-19 -O3 -mcpu=sm_90a -mattr=+ptx80; a
// failure names the command line and keeps the .ll) and NVVM (libNVVM through
// the NVVMCompiler interface, which runtime/cuda implements; the IR is first
// rewritten into libNVVM's LLVM 7 dialect by ToNVVMDialect). Select picks
// one by name or, for "auto", llc when installed and libNVVM otherwise, and
// says why.
package nvptx
