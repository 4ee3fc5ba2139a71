package tests

import (
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlego/tle/frontend/parser/parsertest"
	"github.com/tlego/tle/tle"
)

var mutTok = regexp.MustCompile(`//[^\n]*|/\*(?s:.*?)\*/|"(\\.|[^"\\\n])*"|0[xXbBoO][0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?|[a-zA-Z_][a-zA-Z0-9_]*|<<=|>>=|:=|&\^|[-+*/%&|^<>=!]=|<<|>>|&&|\|\||\S`)

var mutNums = []string{"0", "1", "2", "3", "-1", "15", "16", "17", "31", "32", "33", "63", "64", "128", "255", "256", "1024", "65536", "2147483647", "2147483648", "4294967296", "9223372036854775807", "1e30", "0.5", "-0.0", "1e-45"}
var mutWords = []string{"f32", "f16", "bf16", "i8", "u8", "i1", "i64", "f64", "f8e4m3", "u64", "true", "false", "None", "smem", "_"}

func mutateOnce(src string, rng *rand.Rand) string {
	locs := mutTok.FindAllStringIndex(src, -1)
	if len(locs) == 0 {
		return src
	}
	var idents []string
	for _, l := range locs {
		s := src[l[0]:l[1]]
		if c := s[0]; c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			idents = append(idents, s)
		}
	}
	l := locs[rng.Intn(len(locs))]
	tok := src[l[0]:l[1]]
	var nums [][]int
	for _, l := range locs {
		if c := src[l[0]]; '0' <= c && c <= '9' {
			nums = append(nums, l)
		}
	}
	if len(nums) > 0 && rng.Intn(2) == 0 {
		l = nums[rng.Intn(len(nums))]
		tok = src[l[0]:l[1]]
	}
	var rep string
	switch r := rng.Intn(10); {
	case tok[0] >= '0' && tok[0] <= '9' && r < 8:
		rep = mutNums[rng.Intn(len(mutNums))]
	case r < 3 && len(idents) > 0:
		rep = idents[rng.Intn(len(idents))]
	case r < 4:
		rep = mutWords[rng.Intn(len(mutWords))]
	case r < 5:
		rep = ""
	case r < 6:
		rep = mutNums[rng.Intn(len(mutNums))]
	case r < 7:
		l2 := locs[rng.Intn(len(locs))]
		rep = tok + " " + src[l2[0]:l2[1]]
	default:
		// duplicate or drop a line
		lines := strings.Split(src, "\n")
		i := rng.Intn(len(lines))
		if rng.Intn(2) == 0 {
			lines = append(lines[:i+1], lines[i:]...)
		} else {
			lines = append(lines[:i], lines[i+1:]...)
		}
		return strings.Join(lines, "\n")
	}
	return src[:l[0]] + rep + src[l[1]:]
}

// TestMutate (TLE_MUTATE=N) runs N token-level mutants of each seed
// through the FuzzPipeline checks (and a 30 s bound), writing those that
// fail to $TLE_MUTATE_OUT; TLE_MUTATE_SEED picks the mutations.
func TestMutate(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TLE_MUTATE"))
	if n == 0 {
		t.Skip("TLE_MUTATE unset")
	}
	seed, _ := strconv.ParseInt(os.Getenv("TLE_MUTATE_SEED"), 10, 64)
	rng := rand.New(rand.NewSource(seed))
	seeds, err := parsertest.Seeds()
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("TLE_MUTATE_OUT")
	fails := 0
	for si, s := range seeds {
		if len(s) > 8<<10 {
			continue
		}
		if _, err := tle.Parse("seed.tle", s); err != nil {
			continue
		}
		for i := 0; i < n; i++ {
			m := string(s)
			for k := 1 + rng.Intn(3); k > 0; k-- {
				m = mutateOnce(m, rng)
			}
			ok := t.Run(fmt.Sprintf("s%d_%d", si, i), func(t *testing.T) {
				// A hang is a failure too: the mutant is saved, the
				// goroutine left running.
				done := make(chan bool)
				go func() {
					defer close(done)
					pipelineOne(t, []byte(m))
				}()
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					if out != "" {
						os.MkdirAll(out, 0o755)
						os.WriteFile(fmt.Sprintf("%s/hang_s%d_%d.tle", out, si, i), []byte(m), 0o644)
					}
					t.Fatalf("no result after 30s:\n%s", m)
				}
			})
			if !ok {
				fails++
				if out != "" {
					os.MkdirAll(out, 0o755)
					os.WriteFile(fmt.Sprintf("%s/s%d_%d.tle", out, si, i), []byte(m), 0o644)
				}
			}
		}
	}
	t.Logf("%d failures; %d inputs checked, %d builds, %d runs succeeded", fails, pipeStats.checked.Load(), pipeStats.built.Load(), pipeStats.ran.Load())
}
