package nvptx_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/tle"
)

const votesSrc = `kernel prefix(k i32, out *i32, N const i32) {
    r := arange(0, N)
    m := r*k%7 < 2 // recomputed in the vote layout: no conversion
    store(out + r*k, prefix_count(m)) // not contiguous: stored from the vote layout
}

kernel prefix_cumsum(x *u8, out *i32, N const i32) {
    r := arange(0, N)
    m := load(x + r) != 0
    store(out + r, cumsum(m.to(i32)) - m.to(i32))
}

kernel words(x *u8, out *u32, W const i32) {
    r := arange(0, W)
    w := ballot(load(x + r) != 0)
    store(out + arange(0, W/32), w)
    store(out + W/32 + arange(0, W/32), popc(w))
}

kernel popcs(x *i64, y *i32, out *i64) {
    r := arange(0, 128)
    store(out + r, popc(load(x + r)) + popc(load(y + r)).to(i64))
}

kernel role_prefix(k i32, out *i32, N const i32) {
    warp_specialize {
        role idle(warps: 1) {
        }
        role work(warps: 4) {
            r := arange(0, N)
            store(out + r*k, prefix_count(r*k%7 < 2))
        }
    }
}

kernel runs(x *u8, out *i32, N const i32) {
    r := arange(0, N)
    store(out + r, prefix_count(load(x + r) != 0))
}
`

// votePTX compiles kernel of votesSrc with llc-19 for warps warps.
func votePTX(t *testing.T, kernel string, n, warps int) string {
	t.Helper()
	if _, err := nvptx.FindLLC(); err != nil {
		t.Skipf("llc-19 not installed: %v", err)
	}
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	k := kernelOf(t, "votes.tle", votesSrc, kernel)
	defs := map[string]string{"W": "1024", "N": "512"}
	if n > 0 {
		defs["N"] = fmt.Sprint(n)
	}
	b, err := k.Compile(tle.CompileOptions{Defines: defs, NumWarps: warps}, tle.GPUOptions{Toolchain: "llc"})
	if err != nil {
		t.Fatalf("%s N=%d warps=%d: %v", kernel, n, warps, err)
	}
	return b.PTX
}

func ptxCount(ptx, instr string) int {
	return len(regexp.MustCompile(`(?m)^\s+(@!?%p\w* )?`+instr).FindAllString(ptx, -1))
}

// TestPTXPrefixCount: prefix_count is one vote.sync.ballot.b32 and two
// popc.b32 per register of the mask (a thread holds N/(32*warps) of them),
// %lanemask_lt read once, and no shuffle at all; a barrier only where
// several warps hold distinct words (their counts go through shared
// memory). The same count through cumsum is a shfl.sync.up scan.
func TestPTXPrefixCount(t *testing.T) {
	for _, c := range []struct{ n, warps int }{{32, 4}, {64, 1}, {64, 4}, {256, 4}, {256, 8}, {1024, 4}, {1024, 8}} {
		ptx := votePTX(t, "prefix", c.n, c.warps)
		regs := max(1, c.n/(32*c.warps))
		what := fmt.Sprintf("N=%d warps=%d", c.n, c.warps)
		if got := ptxCount(ptx, `vote\.sync\.ballot\.b32\s`); got != regs {
			t.Errorf("%s: %d vote.sync.ballot.b32, want %d", what, got, regs)
		}
		distinct := c.n > 32 && c.warps > 1
		// per register its lanes below, and its word's count but for the
		// last word when no other warp needs it
		want := 2 * regs
		if !distinct {
			want--
		}
		if got := ptxCount(ptx, `popc\.b32\s`); got != want {
			t.Errorf("%s: %d popc.b32, want %d", what, got, want)
		}
		if got := ptxCount(ptx, `mov\.u32 %r\d+, %lanemask_lt;`); got != 1 {
			t.Errorf("%s: %d reads of %%lanemask_lt, want 1", what, got)
		}
		if strings.Contains(ptx, "shfl.sync") {
			t.Errorf("%s: a shuffle in prefix_count:\n%s", what, ptx)
		}
		if got := ptxCount(ptx, `bar\.sync\s`) > 0; got != distinct {
			t.Errorf("%s: barrier %v, want %v (the only shared memory is the counts')", what, got, distinct)
		}
	}
	if ptx := votePTX(t, "prefix_cumsum", 256, 4); ptxCount(ptx, `shfl\.sync\.up\.b32\s`) == 0 {
		t.Errorf("cumsum: no shfl.sync.up.b32 (the scan prefix_count avoids)")
	}
	// a tile shorter than a warp: the low lanes' votes, no %lanemask_lt
	ptx := votePTX(t, "prefix", 16, 4)
	if ptxCount(ptx, `vote\.sync\.ballot\.b32\s`) != 1 || strings.Contains(ptx, "%lanemask_lt") || strings.Contains(ptx, "shfl.sync") || ptxCount(ptx, `and\.b32\s+%r\d+, %r\d+, 65535;`) != 1 {
		t.Errorf("N=16: want one ballot masked to the low 16 lanes, no %%lanemask_lt, no shuffle:\n%s", ptx)
	}
}

// TestPTXBallotPopc: ballot is one vote.sync.ballot.b32 per word a thread
// holds, popc of u32 words popc.b32 and of i64 popc.b64.
func TestPTXBallotPopc(t *testing.T) {
	ptx := votePTX(t, "words", 0, 4)
	if got := ptxCount(ptx, `vote\.sync\.ballot\.b32\s`); got != 8 {
		t.Errorf("ballot of 1024 over 4 warps: %d vote.sync.ballot.b32, want 8", got)
	}
	if ptxCount(ptx, `popc\.b32\s`) == 0 {
		t.Errorf("no popc.b32")
	}
	ptx = votePTX(t, "popcs", 0, 4)
	if ptxCount(ptx, `popc\.b64\s`) == 0 || ptxCount(ptx, `popc\.b32\s`) == 0 {
		t.Errorf("popc of i64 and i32: want popc.b64 and popc.b32:\n%s", ptx)
	}
}

// TestPTXPrefixCountInRole: inside a warp role the counts' barrier is the
// role's named barrier over its 128 threads, not bar.sync 0.
func TestPTXPrefixCountInRole(t *testing.T) {
	ptx := votePTX(t, "role_prefix", 512, 0)
	if ptxCount(ptx, `vote\.sync\.ballot\.b32\s`) != 4 || strings.Contains(ptx, "shfl.sync") || !strings.Contains(ptx, "%lanemask_lt") {
		t.Errorf("role: want 4 ballots and no shuffle:\n%s", ptx)
	}
	// warp_specialize itself begins and ends with bar.sync 0; the role's
	// code (from its %lanemask_lt read to its last barrier) synchronises
	// its own threads only
	from := strings.Index(ptx, "%lanemask_lt")
	role := ptx[from:max(from, strings.LastIndex(ptx, ", 128;")+len(", 128;"))]
	if !regexp.MustCompile(`bar\.sync\s+[1-9]\d*, 128;`).MatchString(role) || regexp.MustCompile(`bar\.sync\s+0;`).MatchString(role) {
		t.Errorf("role: want a named barrier over 128 threads and no bar.sync 0:\n%s", ptx)
	}
}

// TestPTXPrefixCountRuns: a mask loaded several bytes per thread is voted
// on in that layout (no conversion through shared memory): a ballot per
// register for runs of two, per bit of the run's count for longer runs
// (1024 bytes over 4 warps: runs of 8, 4 ballots), and no shuffle.
func TestPTXPrefixCountRuns(t *testing.T) {
	for _, c := range []struct{ n, warps, ballots int }{{256, 4, 2}, {1024, 8, 3}, {1024, 4, 4}} {
		ptx := votePTX(t, "runs", c.n, c.warps)
		what := fmt.Sprintf("N=%d warps=%d", c.n, c.warps)
		if got := ptxCount(ptx, `vote\.sync\.ballot\.b32\s`); got != c.ballots {
			t.Errorf("%s: %d vote.sync.ballot.b32, want %d", what, got, c.ballots)
		}
		if strings.Contains(ptx, "shfl.sync") || ptxCount(ptx, `st\.shared(\.v\d)?\.u8\s`) > 0 {
			t.Errorf("%s: a shuffle, or the mask converted through shared memory:\n%s", what, ptx)
		}
	}
}
