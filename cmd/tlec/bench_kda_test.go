package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

const peerDir = "../../kernels/kda/testdata/"

// The kda_fwd flags and the peer file are checked before a GPU is looked
// for: the peer file against the dry run's rows.
func TestBenchKDABadFlagsAndPeerFiles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--state", "f16"}, 2, `--state: want "f32" or "bf16", got "f16"`},
		{[]string{"--configs", "9"}, 2, `--configs: "9": want 1-based indices in [1, 8]`},
		{[]string{"--variant", "v3:2"}, 2, `flag provided but not defined: -variant`},
		{[]string{"--prep-warps", "3"}, 2, `--prep-warps: `},
		{[]string{"--prep-block-k", "24"}, 2, `--prep-block-k: `},
		{[]string{"--block-v", "256"}, 2, `--block-v: `},
		{[]string{"--peer", peerDir + "none.json"}, 2, "--peer " + peerDir + "none.json: open " + peerDir + "none.json"},
		{[]string{"--peer", peerDir + "kda_peers_malformed.json"}, 1, "malformed JSON at line 4"},
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

// A dry run with --peer shows the peers' medians (no speed-up: nothing
// was timed).
func TestBenchKDADryRunPeers(t *testing.T) {
	code, out, errs := runCLI("bench", "kda_fwd", "--dry-run", "--configs", "1,7", "--peer", peerDir+"kda_peers.json")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "FlashKDA us")
	require.Contains(t, out, "FLA us")
	require.Contains(t, out, "H96_fixed")
	require.Contains(t, out, "H96_T1024")
}
