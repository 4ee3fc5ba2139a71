// Package cudatest gates tests on a CUDA GPU. Require skips the test, with
// the reason, when no driver or device is present; with TLE_REQUIRE_GPU=1
// (set it on the GPU host) a missing GPU fails the test instead, so a broken
// driver install cannot pass as a clean skip.
package cudatest

import (
	"os"
	"sync"
	"testing"

	"github.com/tlego/tle/runtime/cuda"
)

var (
	once sync.Once
	ctx  *cuda.Context
	err  error
)

// Require returns the primary context of device 0, shared by the tests of
// the binary (never closed), or skips t.
func Require(t testing.TB) *cuda.Context {
	t.Helper()
	once.Do(func() {
		if err = cuda.Available(); err == nil {
			ctx, err = cuda.Open(0)
		}
	})
	if err != nil {
		if os.Getenv("TLE_REQUIRE_GPU") == "1" {
			t.Fatalf("TLE_REQUIRE_GPU=1 but no GPU: %v", err)
		}
		t.Skipf("no CUDA GPU: %v", err)
	}
	return ctx
}

// RequireSM90 is Require plus a compute capability 9.x check (Hopper
// features: clusters, TMA, wgmma).
func RequireSM90(t testing.TB) *cuda.Context {
	t.Helper()
	c := Require(t)
	major, err := c.Dev.Attribute(cuda.AttrComputeCapabilityMajor)
	if err != nil {
		t.Fatal(err)
	}
	if major < 9 {
		t.Skipf("needs compute capability 9.0, device has %d.x", major)
	}
	return c
}
