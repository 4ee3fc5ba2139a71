package collectives

import (
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// count is the number of lines of ptx the regexp w matches (an
// instruction, operands separated by any white space).
func count(ptx, w string) int {
	return len(tletest.PTXLine(strings.ReplaceAll(w, " ", `\s+`)).FindAllString(ptx, -1))
}

// reBarrierCall finds the distributed_barrier calls of a kernel's source.
var reBarrierCall = regexp.MustCompile(`distributed_barrier\(`)

// TestCollectivesPTX compiles every collective to PTX with llc-19 for
// sm_90a, on meshes of 2, 4 and 8 devices, in bf16 and f32, and checks
// what the device-mesh ABI makes of it: three hidden parameters after the
// kernel's own (rank, heap_bases, sync) and Binary.Hidden naming them;
// each device barrier one handshake (atom.add.release.sys on the peers'
// recv counters, a spin on ld.acquire.sys); the
// heap_bases table loaded before the first barrier, none of it later;
// all_gather_push's signals atom.add.release.sys on the peers' flags and
// its signal_wait one more ld.acquire.sys spin; no barrier.cluster (the
// meshes have no cluster axis).
func TestCollectivesPTX(t *testing.T) {
	tletest.NeedLLC(t)
	files, err := fs.Glob(FS, "*.tle")
	require.NoError(t, err)
	// every build in one llc run (tle.CompileAll), then the checks
	type build struct {
		what, body string
		barriers   int
	}
	var specs []tle.Spec
	var builds []build
	for _, file := range files {
		if file == "tp_matmul.tle" {
			continue // a matmul's tiles, not BLOCK: TestAgMatmulPTX
		}
		p, err := tle.Load(FS, file)
		require.NoError(t, err)
		src := string(p.Source())
		for _, name := range p.Kernels() {
			k, err := p.Kernel(name)
			require.NoError(t, err)
			// the kernel's own source: from its declaration to the next
			body := src[strings.Index(src, "kernel "+name+"("):]
			if i := strings.Index(body[1:], "\nkernel "); i >= 0 {
				body = body[:i+1]
			}
			barriers := len(reBarrierCall.FindAllString(body, -1))
			for _, world := range []int{2, 4, 8} {
				for _, dtype := range []string{"bf16", "f32"} {
					specs = append(specs, tle.Spec{Kernel: k, Options: tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BLOCK": "256", "T": dtype}}})
					builds = append(builds, build{fmt.Sprintf("%s WORLD=%d T=%s", name, world, dtype), body, barriers})
				}
			}
		}
	}
	bins, err := tle.CompileAll(specs, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	built := 0
	for i, b := range bins {
		what, body, barriers := builds[i].what, builds[i].body, builds[i].barriers
		world, _ := strconv.Atoi(specs[i].Options.Defines["WORLD"])
		built++
		require.Equal(t, world, b.MeshDevices, what)
		require.Equal(t, []string{"rank", "heap_bases", "sync"}, b.Hidden, what)
		entry := b.PTX[strings.Index(b.PTX, ".entry"):]
		entry = entry[:strings.Index(entry, ")")]
		require.Equal(t, len(b.Params)+3, strings.Count(entry, ".param"), what)
		ptx := b.PTX
		require.NotContains(t, ptx, "barrier.cluster", what)
		atoms := count(ptx, `atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], 1;`)
		require.Equal(t, barriers, atoms, what+": one handshake arrival per device barrier")
		spins := count(ptx, `ld\.acquire\.sys\.global\.b32 %r\d+, \[%rd\d+\];`)
		waits := strings.Count(body, "signal_wait(")
		require.Equal(t, barriers+waits, spins, what+": one ld.acquire.sys spin per device barrier and signal_wait")
		signals := count(ptx, `@%p atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], %r\d+;`)
		require.Equal(t, strings.Count(body, "signal("), signals, what+": one release per signal")
		first := tletest.PTXLine(`bar\.sync\s+0;`).FindStringIndex(ptx)
		require.NotNil(t, first, what)
		tableLoads := tletest.PTXLine(`ld\.global\.u64\s+%rd\d+, \[%rd\d+(\+\d+)?\];`).FindAllStringIndex(ptx, -1)
		require.NotEmpty(t, tableLoads, what)
		for _, l := range tableLoads {
			require.Less(t, l[0], first[0], what+": a heap_bases load after the first barrier")
		}
	}
	require.Equal(t, 5*3*2, built, "every collective, 3 mesh sizes, 2 dtypes")
}
