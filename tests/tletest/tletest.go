// Package tletest holds helpers shared by the tests that run kernels through
// package tle: the devices to run on, random inputs and the error measure
// of a result.
package tletest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// Devices are the interpreter, and the GPU when one is present (else t logs
// why not).
func Devices(t *testing.T) []tle.Device {
	devs, noGPU := tle.Devices()
	if noGPU != nil {
		t.Logf("GPU runs skipped: %v", noGPU)
	}
	return devs
}

// RelRMS is ||got - want|| / ||want||.
func RelRMS(got, want []float64) float64 {
	var num, den float64
	for i := range want {
		d := got[i] - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

// Randn is n draws of r's standard normal distribution.
func Randn(r *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = r.NormFloat64()
	}
	return out
}

// Round is xs rounded to dtype d.
func Round(d ir.DType, xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = d.Round(x)
	}
	return out
}
