package kda

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/tlego/tle/internal/fileio"
)

// Peers are the figures of a peer file: the JSON object that the peer
// script (kda_peers.py, run by tools/gpu-kda-peers.sh) writes on the GPU
// host in the same run as the bench, so that speed-ups are never taken
// against figures of another day. Its keys, for a configuration's PeerKey
// (H96_fixed):
//
//	flashkda_f32state_<key>_ms, flashkda_bf16state_<key>_ms  FlashKDA's median ms (f32 or bf16 state)
//	flashkda_prepare_<key>_ms, flashkda_recurrence_<key>_ms  its two kernels (profiled with the f32 state)
//	fla_<key>_ms, or fla_<key>_err when FLA failed            FLA's chunk_kda (f32 state)
//	relrms_fla_vs_flashkda_<key>                              their outputs' relative RMS difference
type Peers struct {
	File string
	vals map[string]any // float64, string, or nil (NaN or Infinity in the file)
}

// PeerFigures are the peers' figures for one configuration and state dtype.
type PeerFigures struct {
	Key        string  `json:"key"`         // the configuration's PeerKey
	FlashKDAMs float64 `json:"flashkda_ms"` // FlashKDA, the state dtype asked for
	// FlashKDA's preparation and recurrence kernels (f32 state), 0 where
	// the file has none (the profiler did not see them).
	FlashKDAPrepareMs    float64 `json:"flashkda_prepare_ms,omitempty"`
	FlashKDARecurrenceMs float64 `json:"flashkda_recurrence_ms,omitempty"`
	FLAMs                float64 `json:"fla_ms,omitempty"`  // FLA, f32 state (0 when FLAErr)
	FLAErr               string  `json:"fla_err,omitempty"` // why FLA has no figure
}

// ReadPeers reads and parses a peer file. Python's json module writes NaN
// and Infinity for non-finite floats; they read as null (an error only
// where a figure is needed).
func ReadPeers(path string) (*Peers, error) {
	b, err := fileio.ReadFile(path, 64<<20) // a regular file: a FIFO would block
	if err != nil {
		return nil, fmt.Errorf("peer file: %w", err)
	}
	return ParsePeers(path, b)
}

// ParsePeers parses the contents b of the peer file named file.
func ParsePeers(file string, b []byte) (*Peers, error) {
	var m map[string]any
	err := json.Unmarshal(nullNonFinite(b), &m)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
		return nil, fmt.Errorf("peer file %s: malformed JSON at line %d (byte %d): %v", file, line, se.Offset, err)
	case err != nil:
		return nil, fmt.Errorf("peer file %s: not a JSON object of figures: %v", file, err)
	case m == nil:
		return nil, fmt.Errorf("peer file %s: null, not a JSON object of figures", file)
	}
	return &Peers{File: file, vals: m}, nil
}

// nullNonFinite replaces the NaN, Infinity and -Infinity tokens outside
// strings by null.
func nullNonFinite(b []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			if c == '\\' && i+1 < len(b) {
				out = append(out, c, b[i+1])
				i++
				continue
			}
			inStr = c != '"'
			out = append(out, c)
			continue
		}
		if c == '"' {
			inStr = true
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(b[i:], []byte(tok)) {
				out = append(out, "null"...)
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}

// For is the figures of configuration c with state dtype state (f32 or
// bf16). A missing FlashKDA median or FLA entry (neither fla_<key>_ms nor
// fla_<key>_err) is an error naming the key; FlashKDA's per-kernel times
// are optional.
func (p *Peers) For(c BenchConfig, state string) (PeerFigures, error) {
	key := c.PeerKey()
	f := PeerFigures{Key: key}
	var err error
	fk := "flashkda_" + state + "state_" + key + "_ms"
	if f.FlashKDAMs, err = p.ms(fk, true, "FlashKDA's median; kda_peers.py writes it when flash_kda imports (see its standard error)"); err != nil {
		return f, err
	}
	if f.FlashKDAPrepareMs, err = p.ms("flashkda_prepare_"+key+"_ms", false, ""); err != nil {
		return f, err
	}
	if f.FlashKDARecurrenceMs, err = p.ms("flashkda_recurrence_"+key+"_ms", false, ""); err != nil {
		return f, err
	}
	fla := "fla_" + key + "_ms"
	if e, ok := p.vals["fla_"+key+"_err"]; ok {
		if _, has := p.vals[fla]; !has {
			f.FLAErr = fmt.Sprint(e)
			return f, nil
		}
	}
	f.FLAMs, err = p.ms(fla, true, "FLA's median")
	return f, err
}

// ms is the positive figure at key; 0 when it is absent and not required.
func (p *Peers) ms(key string, required bool, what string) (float64, error) {
	v, ok := p.vals[key]
	if !ok {
		if !required {
			return 0, nil
		}
		return 0, fmt.Errorf("peer file %s: no key %q (%s; the script writes the file after each configuration, so a run cut short lacks the later ones: pick those it has with --configs)", p.File, key, what)
	}
	x, isNum := v.(float64)
	if !isNum || x <= 0 || math.IsInf(x, 0) {
		return 0, fmt.Errorf("peer file %s: key %q is %s, want a positive number of ms", p.File, key, describe(v))
	}
	return x, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null (NaN or Infinity in the file)"
	case string:
		return fmt.Sprintf("the string %q", v)
	case float64:
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("a JSON %T", v)
}

// PeersFor is the figures of each configuration (see Peers.For).
func (p *Peers) PeersFor(configs []BenchConfig, state string) ([]PeerFigures, error) {
	var out []PeerFigures
	for _, c := range configs {
		f, err := p.For(c, state)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
