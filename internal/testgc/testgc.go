// Package testgc sets the garbage collector of the repository's test
// binaries. The test files of the packages whose tests allocate most (the
// parser's property tests, the checker's mutations, the interpreter's
// attention runs) import it for its effect:
//
//	import _ "github.com/tlego/tle/internal/testgc"
//
// Those tests keep small heaps of short-lived values, so at Go's default
// GOGC of 100 the collector runs many times a second and takes a large
// share of the suite's CPU on the two-core machines it runs on. A GC
// percent of 400 trades memory (a few hundred MB at most per binary) for
// that CPU; a soft memory limit keeps a test with a large heap collecting
// before it grows past it. docs/perf.md ("The test suite") has the
// figures. GOGC or GOMEMLIMIT set in the environment win.
package testgc

import (
	"os"
	"runtime/debug"
)

// Percent and Limit are the settings applied when the environment sets
// neither GOGC nor GOMEMLIMIT.
const (
	Percent = 400
	Limit   = 4 << 30
)

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(Limit)
	}
}
