package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/tle"
)

const peerDir = "../../kernels/kda/testdata/"

func TestKDAConfigs(t *testing.T) {
	all, err := kdaConfigs("")
	require.NoError(t, err)
	require.Len(t, all, 8)
	cs, err := kdaConfigs("7, 8,1")
	require.NoError(t, err)
	require.Equal(t, []string{"H96_T1024", "H64_T32768", "H96_fixed"}, []string{cs[0].PeerKey(), cs[1].PeerKey(), cs[2].PeerKey()})
	for _, bad := range []string{"9", "0", "x", "1,", "-1"} {
		_, err := kdaConfigs(bad)
		require.ErrorContains(t, err, "want 1-based indices in [1, 8]", bad)
	}
}

// The kda_fwd flags and the peer file are checked before a GPU is looked
// for.
func TestBenchKDABadFlagsAndPeerFiles(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--state", "f16"}, 2, `--state "f16": want f32 or bf16`},
		{[]string{"--configs", "9"}, 2, `--configs "9": want 1-based indices in [1, 8]`},
		{[]string{"--variant", "v3:2"}, 2, `--variant "v3:2": kda_fwd has one pair of kernels`},
		{[]string{"--prep-warps", "3"}, 2, `--prep-warps: `},
		{[]string{"--prep-block-k", "24"}, 2, `--prep-block-k: `},
		{[]string{"--block-v", "256"}, 2, `--block-v: `},
		{[]string{"--peer", peerDir + "none.json"}, 1, "--peer: peer file: open " + peerDir + "none.json"},
		{[]string{"--peer", peerDir + "kda_peers_malformed.json"}, 1, "kda_peers_malformed.json: malformed JSON at line 4"},
		{[]string{"--peer", peerDir + "kda_peers_partial.json"}, 1, `no key "flashkda_f32state_H96_T1024_ms"`},
		{[]string{"--peer", peerDir + "kda_peers_partial.json", "--configs", "2,8", "--state", "bf16"}, 1, `no key "flashkda_bf16state_H64_T32768_ms"`},
	} {
		code, _, errs := runCLI(append([]string{"bench", "kda_fwd"}, c.args...)...)
		require.Equal(t, c.code, code, "%v: %s", c.args, errs)
		require.Contains(t, errs, c.want, "%v", c.args)
	}
	if _, err := tle.OpenGPU(); err == nil {
		return // the bench would run
	}
	code, _, errs := runCLI("bench", "kda_fwd", "--peer", peerDir+"kda_peers_partial.json", "--configs", "1,6", "--state", "bf16", "--prep-warps", "4", "--prep-block-k", "64")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "kda_fwd needs a GPU", "the flags and the file pass")
}

// benchRes is a measured configuration for the printing tests.
func benchRes(c kda.BenchConfig, ms float64) kda.BenchResult {
	return kda.BenchResult{Config: c.Name, Tag: c.Tag, H: c.H, T: 1024, N: 1, BlockV: 32, RecWarps: 2, PrepWarps: 2, PrepBlockK: 128, State: kda.StateF32,
		Ms: ms, MinMs: ms * 0.99, TBps: 1.5, PartsMs: []float64{ms / 2, ms / 4}}
}

func TestPrintKDAWithPeers(t *testing.T) {
	p, err := kda.ReadPeers(peerDir + "kda_peers.json")
	require.NoError(t, err)
	cs := []kda.BenchConfig{kda.BenchConfigs[0], kda.BenchConfigs[6]}
	figs, err := p.PeersFor(cs, kda.StateF32)
	require.NoError(t, err)
	// FlashKDA 1.0 and 1.75 ms, FLA 2.0 and 3.5 ms in the file
	rows := kdaRows([]kda.BenchResult{benchRes(cs[0], 0.5), benchRes(cs[1], 1.0)}, figs)
	require.Equal(t, 2.0, rows[0].VsFlashKDA)
	require.Equal(t, 4.0, rows[0].VsFLA)
	var out bytes.Buffer
	printKDA(&out, rows, "peers.json")
	s := out.String()
	t.Log("\n" + s)
	lines := strings.Split(s, "\n")
	require.Equal(t, "kda_fwd block_v 32 (2 recurrence warps), 2 preparation warps, prep K block 128, f32 state", lines[0])
	require.Equal(t, []string{"96", "fixed", "1024", "1", "0.5000", "0.4950", "1.500", "0.2500", "+", "0.1250", "1.0000", "0.5000", "+", "0.5000", "2.0000", "2.000x", "4.000x"},
		strings.Fields(lines[2]))
	require.Equal(t, []string{"96", "T1024", "1024", "1", "1.0000", "0.9900", "1.500", "0.5000", "+", "0.2500", "1.7500", "0.8750", "+", "0.8750", "3.5000", "1.750x", "3.500x"},
		strings.Fields(lines[3]))
	require.Contains(t, s, "peers from peers.json (FlashKDA with the f32 state, its kernels profiled with the f32 state; FLA with an f32 state)")
	// sqrt(2 * 1.75) = 1.8708, sqrt(4 * 3.5) = 3.7417
	require.Contains(t, s, "geometric-mean speed-up over 2 configurations: 1.871x FlashKDA, 3.742x FLA\n")
}

// FLA's failure and FlashKDA's missing kernel times print as such; the FLA
// mean is over the configurations with a figure.
func TestPrintKDAPartialPeers(t *testing.T) {
	p, err := kda.ReadPeers(peerDir + "kda_peers_partial.json")
	require.NoError(t, err)
	cs := []kda.BenchConfig{kda.BenchConfigs[4], kda.BenchConfigs[5]}
	figs, err := p.PeersFor(cs, kda.StateF32)
	require.NoError(t, err)
	var out bytes.Buffer
	printKDA(&out, kdaRows([]kda.BenchResult{benchRes(cs[0], 1.0), benchRes(cs[1], 1.0)}, figs), "p.json")
	s := out.String()
	t.Log("\n" + s)
	lines := strings.Split(s, "\n")
	require.Equal(t, []string{"64", "varlen6", "1024", "1", "1.0000", "0.9900", "1.500", "0.5000", "+", "0.2500", "1.5000", "-", "3.0000", "1.500x", "3.000x"},
		strings.Fields(lines[2]))
	require.Equal(t, []string{"64", "1024x8", "1024", "1", "1.0000", "0.9900", "1.500", "0.5000", "+", "0.2500", "1.6250", "0.8125", "+", "0.8125", "failed", "1.625x", "-"},
		strings.Fields(lines[3]))
	// sqrt(1.5 * 1.625) = 1.5612
	require.Contains(t, s, "over 2 configurations: 1.561x FlashKDA, 3.000x FLA (over the 1 with an FLA figure)\n")
	require.Contains(t, s, "FLA failed on H64 1024x8: CUDA out of memory\n")
}

// Without --peer there is no peer column and no speed-up.
func TestPrintKDAWithoutPeers(t *testing.T) {
	var out bytes.Buffer
	r := benchRes(kda.BenchConfigs[7], 3.0)
	r.State = kda.StateBF16
	printKDA(&out, kdaRows([]kda.BenchResult{r}, nil), "")
	s := out.String()
	require.Contains(t, s, "bf16 state\n")
	require.NotContains(t, s, "FlashKDA ms")
	require.NotContains(t, s, "speed-up")
	require.NotContains(t, s, "x\n")
	require.Contains(t, s, "no peer figures: --peer FILE")
	require.Equal(t, []string{"64", "T32768", "1024", "1", "3.0000", "2.9700", "1.500", "1.5000", "+", "0.7500"}, strings.Fields(strings.Split(s, "\n")[2]))
}
