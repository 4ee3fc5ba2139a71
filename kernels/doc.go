// Package kernels holds the .tle kernels of TLE-Go with their Go host
// wrappers, embedded with go:embed.
package kernels
