// Package ir is TLE-Go's tile IR: an SSA form in which values are scalars,
// tiles (dense blocks held by one program instance), pointers, shared-memory
// descriptors (memdescs), pipes, barriers and meshes, and control flow is
// structured (for/if ops with single-block regions, warp-specialize roles).
//
// Every op carries the .tle position it came from, so that diagnostics from
// any pass point at source. The text form (Print, Parse) round-trips, so a
// pass can be tested on its own from a .tir file, and Verify checks the
// invariants between passes.
//
// The ops and their operand conventions are listed in ops.go.
package ir
