package prefill

import (
	"os"
	"testing"

	"github.com/tlego/tle/tests/tletest"
)

// TestMain gives the process one fresh JIT cache (tletest.FreshCacheMain),
// so that the PTX tests, which compile through llc, may run in parallel.
func TestMain(m *testing.M) { os.Exit(tletest.FreshCacheMain(m)) }
