package nvptx_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestShufflePTX: wgmma_e4m3_chain's fp8 P, computed by one wgmma and fed
// to the next as register a, converts with one shfl.sync.idx a register
// of a (8 a thread at N = 64) and prmt.b32, through no shared memory and
// no barrier.
func TestShufflePTX(t *testing.T) {
	b := tutorial(t, "wgmma_fp8_chain.tle", "wgmma_e4m3_chain", map[string]string{"N": "64", "K": "64"})
	require := func(ok bool, msg string) {
		t.Helper()
		if !ok {
			t.Fatalf("%s\n%s", msg, b.PTX)
		}
	}
	// from the first product's wait to the second product
	first := strings.Index(b.PTX, "wgmma.wait_group.sync.aligned 0;")
	require(first >= 0, "no wgmma wait")
	second := strings.Index(b.PTX[first:], "wgmma.mma_async")
	require(second >= 0, "no second wgmma")
	conv := b.PTX[first : first+second]
	n := len(regexp.MustCompile(`shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, %r\d+, 31, -1;`).FindAllString(conv, -1))
	require(n == 8, fmt.Sprintf("want 8 shfl.sync.idx between the products, got %d", n))
	require(len(regexp.MustCompile(`prmt\.b32\s+%r\d+, %r\d+, %r\d+, %r\d+;`).FindAllString(conv, -1)) >= 8, "want the lanes' prmt.b32")
	for _, op := range []string{"bar.sync", "barrier.sync", "st.shared", "ld.shared"} {
		require(!strings.Contains(conv, op), "no "+op+" between the products")
	}
}
