package decode

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/tle"
)

// TestValidate: each bad argument is refused before anything runs, by an
// paged.ArgError naming it (Decode on the interpreter would otherwise run).
// good is a valid small call (bf16, or fp8 of a quant type).
func good(fp8 bool, quant int) made {
	r := rand.New(rand.NewPCG(5, 6))
	return makeCase(r, decodeCase{fp8: fp8, quant: quant, page: 32, hkv: 2, g: 4, sq: 2, lens: []int64{40, 2}, nhd: true})
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		arg    string
		fp8    bool
		quant  int
		mutate func(m *made)
	}{
		{"layout", false, 0, func(m *made) { m.p.Layout = "nchw" }},
		{"dtype", false, 0, func(m *made) { m.p.DType = "f16" }},
		{"quant_type", true, 0, func(m *made) { m.p.QuantType = 2 }},
		{"sq", false, 0, func(m *made) { m.p.Sq = 5 }},
		{"sq", false, 0, func(m *made) { m.p.Sq = 0 }},
		{"scale", false, 0, func(m *made) { m.p.Scale = math.NaN() }},
		{"splits", false, 0, func(m *made) { m.p.Splits = MaxSplits + 1 }},
		{"schedule", false, 0, func(m *made) { m.p.Schedule = "balanced" }},
		{"schedule", false, 0, func(m *made) { m.p.Schedule = ScheduleDynamic }}, // page 32: the fixed split's kernels only
		{"kv_lens", false, 0, func(m *made) { m.in.KVLens[0] = 1 << 31 }},        // past what the kernels count in i32
		{"q", false, 0, func(m *made) { m.in.Q = nil }},
		{"q", false, 0, func(m *made) { m.in.Q = &tle.Tensor{Shape: []int{4, 8, 64}, Data: make([]float64, 4*8*64)} }},
		{"q", false, 0, func(m *made) { m.in.Q.Shape = []int{4, 8, 128, 1} }},
		{"q", false, 0, func(m *made) { m.in.Q.Data = m.in.Q.Data[1:] }},
		{"q", false, 0, func(m *made) { m.p.Sq = 3 }}, // 4 rows are not whole requests of 3
		{"q", false, 0, func(m *made) { m.in.Q.Data[7] = math.NaN() }},
		{"q", false, 0, func(m *made) { // Hq not a multiple of Hkv: 6 q heads over 4 kv heads
			m.in.Q = &tle.Tensor{Shape: []int{4, 6, 128}, Data: make([]float64, 4*6*128)}
		}},
		{"q", false, 0, func(m *made) { // group 2
			m.in.Q = &tle.Tensor{Shape: []int{4, 4, 128}, Data: make([]float64, 4*4*128)}
		}},
		{"k_cache", false, 0, func(m *made) { m.in.KCache.Shape = []int{m.in.KCache.Shape[0], 8, 2, 256} }}, // page 8 (and dim 256)
		{"k_cache", false, 0, func(m *made) {
			s := m.in.KCache.Shape
			m.in.KCache.Shape = []int{s[0] * 4, 8, s[2], s[3]} // page 8
		}},
		{"k_cache", false, 0, func(m *made) { m.in.KCache = nil }},
		{"v_cache", false, 0, func(m *made) { m.in.VCache = &tle.Tensor{Shape: []int{1, 32, 2, 128}, Data: make([]float64, 32*2*128)} }},
		{"block_ids", false, 0, func(m *made) { m.in.BlockIDs = m.in.BlockIDs[:1] }},
		{"block_ids", false, 0, func(m *made) { m.in.BlockIDs[0][1] = int64(m.in.KCache.Shape[0]) }}, // used page out of range
		{"block_ids", false, 0, func(m *made) { m.in.BlockIDs[1][0] = -1 }},
		{"block_ids", false, 0, func(m *made) { m.in.BlockIDs[1] = m.in.BlockIDs[1][:1] }},
		{"kv_lens", false, 0, func(m *made) { m.in.KVLens[1] = 1 }}, // < sq
		{"kv_lens", false, 0, func(m *made) { m.in.KVLens[0] = int64(len(m.in.BlockIDs[0])*32 + 1) }},
		{"kv_lens", false, 0, func(m *made) { m.in.KVLens = m.in.KVLens[:1] }},
		{"q_scale", false, 0, func(m *made) { m.in.QScale = tle.NewTensor(4, 8) }}, // a scale for bf16
		{"q_scale", true, 1, func(m *made) { m.in.QScale = tle.NewTensor(4, 4) }},
		{"q_scale", true, 1, func(m *made) { m.in.QScale.Data[0] = math.Inf(1) }},
		{"k_scale", true, 1, func(m *made) { m.in.KScale = tle.NewTensor(2) }},
		{"k_scale", true, 0, func(m *made) { m.in.KScale = tle.NewTensor(1) }},
		{"k_scale", true, 0, func(m *made) { // hnd order for an nhd cache
			s := m.in.KScale.Shape
			m.in.KScale.Shape = []int{s[0], s[2], s[1]}
		}},
		{"v_scale", true, 0, func(m *made) { m.in.VScale = tle.NewTensor(1) }},
		{"v_scale", true, 1, func(m *made) { m.in.VScale = nil }},
		{"k_cache", true, 1, func(m *made) { m.in.KCache.Data[readSlot(m)] = 0.3 }}, // not an e4m3 value
		{"q", false, 0, func(m *made) { m.in.Q.Data[3] = 1e39 }},                    // finite, but +Inf in bf16
		{"k_cache", false, 0, func(m *made) { m.in.KCache.Data[readSlot(m)] = math.Inf(-1) }},
		{"v_cache", false, 0, func(m *made) { m.in.VCache.Data[readSlot(m)+5] = math.NaN() }},
		{"v_cache", true, 1, func(m *made) { m.in.VCache.Data[readSlot(m)+1] = math.NaN() }},
		{"q", true, 1, func(m *made) { m.in.Q.Data[0] = 1000 }}, // past e4m3's range
	} {
		m := good(c.fp8, c.quant)
		_, err := Validate(m.in, m.p)
		require.NoError(t, err, "the unmutated case")
		c.mutate(&m)
		out, err := Run(tle.CPU(), m.in, m.p)
		require.Nil(t, out)
		var ae *paged.ArgError
		require.True(t, errors.As(err, &ae), "%s: want an paged.ArgError, got %v", c.arg, err)
		require.Equal(t, c.arg, ae.Arg, "%v", err)
		t.Logf("%s: %v", c.arg, err)
	}
}

// TestChooseSplits: the policy on the spec's workloads (132 SMs): the
// smallest chunk of at least max(2, cdiv(tiles, 132)) tiles whose pieces
// fit in 132 programs, and the longest request's splits at that chunk.
func TestChooseSplits(t *testing.T) {
	rep := func(n int, L int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = L
		}
		return out
	}
	for _, c := range []struct {
		name          string
		lens          []int64
		splits, chunk int
	}{
		{"uniform_512", rep(64, 512), 2, 4},                                   // 512 tiles: cdiv(512, 132) = 4 a piece, 128 pieces
		{"uniform_4096", rep(64, 4096), 2, 32},                                // 4096 tiles: 32 a piece, 128 pieces
		{"skewed_mix", append(rep(32, 128), rep(32, 4096)...), 3, 22},         // 2112 tiles: 17 gives 32 + 32*4 = 160 pieces; 22 gives 32 + 32*3
		{"skewed_extreme", append(rep(15, 64), 16384), 86, 3},                 // 271 tiles: 3 a piece, 15 + 86 pieces
		{"one_128k_31x4k", append([]int64{131072}, rep(31, 4096)...), 64, 32}, // 4032 tiles: 31 gives 67 + 31*3 = 160; 32 gives 64 + 31*2
		{"two_32k_30x4k", append(rep(2, 32768), rep(30, 4096)...), 21, 25},    // 2944 tiles: 25 gives 2*21 + 30*3 = 132
		{"full machine", rep(512, 1024), 1, 16},                               // 512 programs already: one piece each
		{"single token", []int64{1}, 1, 1},
		{"capped", []int64{64 * 64 * 400}, MaxSplits, 200}, // 25600 tiles: 194 a piece would be 132 splits, over the cap
	} {
		s, w := ChooseChunk(len(c.lens), 1, c.lens, 132)
		require.Equal(t, [2]int{c.splits, c.chunk}, [2]int{s, w}, c.name)
		require.Equal(t, s, ChooseSplits(len(c.lens), 1, c.lens, 132), c.name)
		var pieces, maxTiles int64
		for _, L := range c.lens {
			tl := (L + Tile - 1) / Tile
			pieces += (tl + int64(w) - 1) / int64(w)
			maxTiles = max(maxTiles, tl)
		}
		require.GreaterOrEqual(t, int64(s*w), maxTiles, "%s: the splits cover the longest request", c.name)
		if int64(len(c.lens)) <= 132 && s < MaxSplits {
			require.LessOrEqual(t, pieces, int64(132), "%s: one wave", c.name)
		}
		t.Logf("%s: %d splits of %d tiles, %d programs with work", c.name, s, w, pieces)
	}
}

// readSlot is the flat index of the first value the call reads of an NHD
// cache: request 0's first token, head 0, dim 0.
func readSlot(m *made) int {
	sh := m.in.KCache.Shape // [blocks, page, Hkv, D]
	return int(m.in.BlockIDs[0][0]) * sh[1] * sh[2] * sh[3]
}

// A NaN or an infinity in a cache slot no request reads is no error: the
// call never reads it (a serving cache holds garbage in free pages).
func TestUnreadSlotsMayHoldAnything(t *testing.T) {
	for _, fp8 := range []bool{false, true} {
		m := good(fp8, 1)
		used := map[int64]bool{}
		for b, row := range m.in.BlockIDs {
			for i := int64(0); i < (m.in.KVLens[b]+31)/32; i++ {
				used[row[i]] = true
			}
		}
		sh := m.in.KCache.Shape
		free := -1
		for blk := range sh[0] {
			if !used[int64(blk)] {
				free = blk
				break
			}
		}
		require.GreaterOrEqual(t, free, 0, "the case has a free page")
		per := sh[1] * sh[2] * sh[3]
		m.in.KCache.Data[free*per] = math.NaN()
		m.in.VCache.Data[free*per+per-1] = math.Inf(1)
		_, err := Validate(m.in, m.p)
		require.NoError(t, err)
	}
}
