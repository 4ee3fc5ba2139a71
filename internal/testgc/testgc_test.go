package testgc

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestInitSetsTheCollector(t *testing.T) {
	old := debug.SetGCPercent(Percent)
	debug.SetGCPercent(old)
	if _, set := os.LookupEnv("GOGC"); !set && old != Percent {
		t.Errorf("GC percent %d, want %d", old, Percent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		if got := debug.SetMemoryLimit(-1); got != Limit {
			t.Errorf("memory limit %d, want %d", got, Limit)
		}
	}
}
