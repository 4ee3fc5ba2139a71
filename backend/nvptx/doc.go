// Package nvptx lowers the tile IR to LLVM IR for the NVPTX target (through
// github.com/llir/llvm, the only package importing it) and turns that into PTX
// with llc-19 or libNVVM.
package nvptx
