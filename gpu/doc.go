// Package gpu is the TritonGPU-like dialect of TLE-Go: the concrete
// layouts of tiles and shared buffers (Blocked, Slice, MMA, MMAv3,
// DotOperand, Shared) and their linear form (LinearLayout), the axis
// analysis (AxisAnalysis), warp-role helpers, shared-memory sizes, wgmma
// layouts, and the attribute names and op kinds of the GPU IR. The passes
// that produce that IR (package passes) and the backend that lowers it
// (backend/nvptx) both import it; it imports neither.
package gpu
