package gpu

// AttrAsyncFallback (string, on a load) is why AsyncLoads left a load marked
// async synchronous; it shows in IR dumps.
const AttrAsyncFallback = "async_fallback"

// AttrDotWgmma (bool, on a kernel) asks DotToWgmma to run on it before the
// layouts are assigned. The tle package sets it on every kernel unless
// CompileOptions.DotMMASync asks for mma.sync.
const AttrDotWgmma = "dot_wgmma"

// AttrRingCopy (bool, on an async_copy in a pipelined loop's body) says the
// copy refills the slot the previous iteration read: a barrier in this
// iteration, before the copy, orders it after those reads (the backend adds
// one when none came first). Copies without it (the prologue's, async
// loads) wait like any shared-memory write for earlier reads of the bytes.
const AttrRingCopy = "ring_copy"

// AttrPipelineStages (int64, on a kernel) overrides the number of stages.
const AttrPipelineStages = "num_stages"

// AttrOrderFromInit (bool, on an alloc with an initial tile, for wgmma)
// lets the buffer take the order of the tile's layout when a wgmma swizzle
// fits it (DotToWgmma's staging buffers).
const AttrOrderFromInit = "order_from_init"

// AttrRoundTF32 (bool, on an alloc with an initial f32 tile) rounds the
// tile to tf32 (cvt.rna.tf32.f32) as it is stored: DotToWgmma's staging
// buffers of an f32 dot, so that wgmma reads the values the interpreter
// multiplies (floats.RoundTF32) whatever the tensor cores do with the 13
// low mantissa bits. The pipeliner leaves such buffers to the register
// path (cp.async could not round).
const AttrRoundTF32 = "round_tf32"

// Attributes the shared-memory allocator writes.
const (
	// AttrSmemOffset (int64, on an op) is the byte offset of the op's buffer
	// or scratch in the CTA's dynamic shared memory.
	AttrSmemOffset = "smem_offset"
	// AttrSmemBytes (int64, on a function) is the dynamic shared memory a
	// launch must provide.
	AttrSmemBytes = "smem_bytes"
)
