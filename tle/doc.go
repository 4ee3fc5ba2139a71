// Package tle is the public Go API of TLE-Go: load .tle sources (from files or
// an embed.FS), look up a kernel, and launch it on a device (the CPU
// interpreter or a CUDA GPU). Subpackages hold the core shared by every layer:
// tle/ir (the tile IR) and tle/diag (positions and diagnostics).
package tle
