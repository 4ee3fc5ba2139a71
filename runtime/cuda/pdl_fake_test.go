package cuda

import (
	"testing"
)

// A programmatic dependent launch reaches cuLaunchKernelEx as attribute 6
// (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) with the value's
// first byte 1, after the cluster attribute when there is one; the next
// plain launch has neither; an old driver and cuLaunchKernel refuse it.
func TestFakeProgrammaticDependentLaunch(t *testing.T) {
	c := fakeContext(t)
	_, _, out, l := vaddSetup(t, c, 256)
	want := func(what string, kv map[string]int64) {
		t.Helper()
		for k, w := range kv {
			if got := fakeGet(t, c.d, k); got != w {
				t.Errorf("%s: %s = %d, want %d", what, k, got, w)
			}
		}
	}
	cfg := LaunchConfig{Grid: Dim3{X: 4}, Block: Dim3{X: 64}, ProgrammaticStreamSerialization: true}
	if err := l.Launch(&cfg); err != nil {
		t.Fatal(err)
	}
	checkVadd(t, c, out, 256)
	want("pdl", map[string]int64{"used_ex": 1, "num_attrs": 1, "pdl": 1, "pdl_slot": 0, "cluster_x": 0})

	cfg.Cluster = Dim3{X: 2}
	if err := l.Launch(&cfg); err != nil {
		t.Fatal(err)
	}
	want("pdl with a cluster", map[string]int64{"num_attrs": 2, "pdl": 1, "pdl_slot": 1, "cluster_x": 2})

	if err := l.Launch(&LaunchConfig{Grid: Dim3{X: 4}, Block: Dim3{X: 64}}); err != nil {
		t.Fatal(err)
	}
	want("plain", map[string]int64{"num_attrs": 0, "pdl": 0, "pdl_slot": -1})

	if err := l.LaunchKernel(&LaunchConfig{Grid: Dim3{X: 4}, Block: Dim3{X: 64}, ProgrammaticStreamSerialization: true}); err == nil {
		t.Error("LaunchKernel accepted a programmatic dependent launch")
	}

	// the attribute's C layout: id 6, the value at offset 8, its first byte 1
	var a CULaunchAttribute
	a.SetProgrammaticStreamSerialization()
	if a.ID != 6 || a.Value[0] != 1 || a.Value[1] != 0 {
		t.Errorf("attribute %+v", a)
	}
}

func TestFakeOldDriverPDL(t *testing.T) {
	c := fakeContext(t, "NO_EX")
	_, _, _, l := vaddSetup(t, c, 100)
	if err := l.Launch(&LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 128}, ProgrammaticStreamSerialization: true}); err != errPDLNeedsEx {
		t.Errorf("programmatic dependent launch on an old driver: %v", err)
	}
}

// MaxActiveClusters passes the launcher's config, its cluster attribute
// included, to cuOccupancyMaxActiveClusters; no cluster shape and an old
// driver are clean errors.
func TestFakeMaxActiveClusters(t *testing.T) {
	c := fakeContext(t)
	_, _, _, l := vaddSetup(t, c, 64)
	launches := fakeGet(t, c.d, "launches")
	for _, cl := range []uint32{1, 2, 8} {
		n, err := l.MaxActiveClusters(&LaunchConfig{Grid: Dim3{X: 8}, Block: Dim3{X: 160}, SharedMem: 4096, Cluster: Dim3{X: cl}, ProgrammaticStreamSerialization: true})
		if err != nil {
			t.Fatal(err)
		}
		if n != 264/int(cl) {
			t.Errorf("cluster %d: %d clusters, want %d", cl, n, 264/int(cl))
		}
		for k, want := range map[string]int64{"cluster_x": int64(cl), "block_x": 160, "smem": 4096, "launches": launches} {
			if got := fakeGet(t, c.d, k); got != want {
				t.Errorf("cluster %d: %s = %d, want %d", cl, k, got, want)
			}
		}
	}
	if _, err := l.MaxActiveClusters(&LaunchConfig{Grid: Dim3{X: 8}, Block: Dim3{X: 64}}); err == nil {
		t.Error("MaxActiveClusters without a cluster shape")
	}
	old := fakeContext(t, "NO_EX")
	_, _, _, lo := vaddSetup(t, old, 64)
	if _, err := lo.MaxActiveClusters(&LaunchConfig{Grid: Dim3{X: 8}, Block: Dim3{X: 64}, Cluster: Dim3{X: 2}}); err == nil {
		t.Error("MaxActiveClusters on a driver without it")
	}
}
