package decode

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestClusterSyncRacecheck runs testdata/cluster_sync.tle, the decode
// merge's shared-memory pattern at its smallest, in each of its forms on
// every device (the interpreter's race check included), checking the
// values read. On the GPU host, compute-sanitizer's racecheck runs each
// subtest on its own (tools/gpu.sh SAN='decode:TestClusterSyncRacecheck/NAME'):
// it is the minimal kernel for the hazards racecheck reports on
// TestDecodeCluster (docs/perf-log.md, run 66).
func TestClusterSyncRacecheck(t *testing.T) {
	src, err := os.ReadFile("testdata/cluster_sync.tle")
	require.NoError(t, err)
	prog, err := tle.Parse("cluster_sync.tle", src)
	require.NoError(t, err)
	k, err := prog.Kernel("cluster_sync")
	require.NoError(t, err)
	const block, ctas = 128, 4
	x := make([]float32, block*ctas)
	for i := range x {
		x[i] = float32(i%251) + 0.5
	}
	for _, c := range []struct {
		name       string
		read, sync int
	}{{"local", 0, 0}, {"remote_self", 1, 0}, {"remote_self_bar", 1, 1}} {
		t.Run(c.name, func(t *testing.T) {
			for _, dev := range tletest.Devices(t) {
				out := make([]float32, block*ctas)
				defs := map[string]string{"BLOCK": fmt.Sprint(block), "READ": fmt.Sprint(c.read), "SYNC": fmt.Sprint(c.sync)}
				require.NoError(t, k.Run(dev, [3]int{ctas, 1, 1}, tle.CompileOptions{Defines: defs}, map[string]any{"x": x, "out": out}), dev.Name())
				for p := 0; p < ctas; p++ {
					for i := 0; i < block; i++ {
						require.Equal(t, x[p*block+(i+32)%block], out[p*block+i], "%s: program %d element %d", dev.Name(), p, i)
					}
				}
			}
		})
	}
}
