// Package tletest holds helpers shared by the tests that run kernels through
// package tle: the devices to run on and the error measure of a result.
package tletest

import (
	"math"
	"testing"

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
