// Package tletest holds helpers shared by the tests that run kernels through
// package tle: the devices to run on, random inputs, the error measure of
// a result, and for PTX pattern tests llc-19 and a PTX line matcher.
package tletest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
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

// GPU opens the GPU for a GPU-only test, which skips without one, or
// fails under TLE_REQUIRE_GPU=1 (a GPU host, where a skip would hide it).
func GPU(t *testing.T) *tle.GPU {
	t.Helper()
	g, err := tle.OpenGPU()
	if err != nil {
		if os.Getenv("TLE_REQUIRE_GPU") == "1" {
			t.Fatalf("TLE_REQUIRE_GPU=1 but no GPU: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	return g
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

// NeedLLC skips a test on a machine without llc-19 (CI installs it) and
// gives it an empty JIT cache, so that it compiles afresh: its own
// (t.Setenv, so the test cannot be parallel), or under FreshCacheMain the
// process's.
func NeedLLC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("llc-19"); err != nil {
		t.Skip("llc-19 not installed (CI installs llvm-19)")
	}
	if processCache == "" {
		t.Setenv("TLE_CACHE_DIR", t.TempDir())
	}
}

// processCache is the JIT cache directory FreshCacheMain made for the test
// process ("" without it).
var processCache string

// FreshCacheMain runs a package's tests (a TestMain's m) with an empty JIT
// cache directory of the process's own, removed after them, and returns
// the exit code. NeedLLC then leaves the environment alone, so the tests
// that call it may call t.Parallel: the cache in memory is the process's
// anyway, and the one on disk starts empty as each test's did.
func FreshCacheMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tle-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tletest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("TLE_CACHE_DIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, "tletest:", err)
		return 1
	}
	processCache = dir
	return m.Run()
}

// PTXLine matches the PTX instruction w at the start of a line, predicated
// or not (@%p, @!%p): a whole instruction, not a name in a comment.
func PTXLine(w string) *regexp.Regexp { return regexp.MustCompile(`(?m)^\s+(@!?%p\w* )?` + w) }

// Filled is a tensor of shape whose every element is v.
func Filled(v float64, shape ...int) *tle.Tensor {
	t := tle.NewTensor(shape...)
	for i := range t.Data {
		t.Data[i] = v
	}
	return t
}
