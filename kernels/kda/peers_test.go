package kda

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The peer files of testdata are in kda_peers.py's format: kda_peers.json
// has all eight configurations, kda_peers_partial.json is a run cut short
// after six, with FLA failed on one, no profiler figures on another and a
// NaN.
func TestReadPeers(t *testing.T) {
	p, err := ReadPeers("testdata/kda_peers.json")
	require.NoError(t, err)
	figs, err := p.PeersFor(BenchConfigs, StateF32)
	require.NoError(t, err)
	require.Len(t, figs, 8)
	require.Equal(t, PeerFigures{Key: "H96_fixed", FlashKDAMs: 1, FlashKDAPrepareMs: 0.5, FlashKDARecurrenceMs: 0.5, FLAMs: 2}, figs[0])
	require.Equal(t, PeerFigures{Key: "H64_T32768", FlashKDAMs: 1.875, FlashKDAPrepareMs: 0.9375, FlashKDARecurrenceMs: 0.9375, FLAMs: 3.75}, figs[7])
	f, err := p.For(BenchConfigs[6], StateBF16)
	require.NoError(t, err)
	require.Equal(t, "H96_T1024", f.Key)
	require.Equal(t, 1.5, f.FlashKDAMs, "the bf16-state median")
	require.Equal(t, 2.0+0.25*6, f.FLAMs, "FLA's (f32 state) median")

	p, err = ReadPeers("testdata/kda_peers_partial.json")
	require.NoError(t, err, "NaN (Python's json) reads as null")
	figs, err = p.PeersFor(BenchConfigs[:6], StateF32)
	require.NoError(t, err)
	require.Equal(t, "CUDA out of memory", figs[5].FLAErr)
	require.Zero(t, figs[5].FLAMs)
	require.Zero(t, figs[4].FlashKDAPrepareMs, "the kernels' times are optional")
	require.Zero(t, figs[4].FlashKDARecurrenceMs)
	_, err = p.PeersFor(BenchConfigs, StateF32)
	require.ErrorContains(t, err, `peer file testdata/kda_peers_partial.json: no key "flashkda_f32state_H96_T1024_ms"`)
	_, err = p.For(BenchConfigs[0], "f16")
	require.ErrorContains(t, err, `no key "flashkda_f16state_H96_fixed_ms"`)
}

func TestReadPeersBadFiles(t *testing.T) {
	_, err := ReadPeers("testdata/kda_peers_malformed.json")
	require.ErrorContains(t, err, "peer file testdata/kda_peers_malformed.json: malformed JSON at line 4")
	_, err = ReadPeers("testdata/no_such_peers.json")
	require.ErrorContains(t, err, "testdata/no_such_peers.json")
	for _, c := range []struct{ src, want string }{
		{`[1, 2]`, "not a JSON object of figures"},
		{`null`, "null, not a JSON object"},
		{`{"flashkda_f32state_H96_fixed_ms": "1.2"}`, `key "flashkda_f32state_H96_fixed_ms" is the string "1.2", want a positive number`},
		{`{"flashkda_f32state_H96_fixed_ms": -1}`, `key "flashkda_f32state_H96_fixed_ms" is -1`},
		{`{"flashkda_f32state_H96_fixed_ms": NaN}`, `key "flashkda_f32state_H96_fixed_ms" is null (NaN or Infinity in the file)`},
		{`{"flashkda_f32state_H96_fixed_ms": 1, "flashkda_prepare_H96_fixed_ms": true}`, `key "flashkda_prepare_H96_fixed_ms" is a JSON bool`},
		{`{"flashkda_f32state_H96_fixed_ms": 1}`, `no key "fla_H96_fixed_ms" (FLA's median`},
	} {
		p, err := ParsePeers("f.json", []byte(c.src))
		if err == nil {
			_, err = p.For(BenchConfigs[0], StateF32)
		}
		require.ErrorContains(t, err, c.want, c.src)
	}
}

// Only NaN and Infinity tokens become null, not those in strings.
func TestNullNonFinite(t *testing.T) {
	src := `{"a": NaN, "b": -Infinity, "c": [Infinity], "NaN \"Infinity\"": "NaN"}`
	require.Equal(t, `{"a": null, "b": null, "c": [null], "NaN \"Infinity\"": "NaN"}`, string(nullNonFinite([]byte(src))))
}

func TestBenchConfigs(t *testing.T) {
	var keys []string
	for _, c := range BenchConfigs {
		keys = append(keys, c.PeerKey())
	}
	// kda_peers.py's CONFIGS, in its order
	require.Equal(t, []string{"H96_fixed", "H96_varlen6", "H96_1024x8", "H64_fixed", "H64_varlen6", "H64_1024x8", "H96_T1024", "H64_T32768"}, keys)
	require.Equal(t, []int{1024}, BenchConfigs[6].Seqlens)
	require.Equal(t, []int{32768}, BenchConfigs[7].Seqlens)
	for _, s := range []string{"", StateF32, StateBF16} {
		_, err := benchState(s)
		require.NoError(t, err)
	}
	_, err := benchState("f16")
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "state_dtype", ae.Arg)
}
