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
// # Toolchains
//
// Toolchain is implemented by LLC (llc-19 -O3 -mcpu=sm_90a -mattr=+ptx80; a
// failure names the command line and keeps the .ll) and NVVM (libNVVM through
// the NVVMCompiler interface, which runtime/cuda implements; the IR is first
// rewritten into libNVVM's LLVM 7 dialect by ToNVVMDialect). Select picks
// one by name or, for "auto", llc when installed and libNVVM otherwise, and
// says why.
package nvptx
