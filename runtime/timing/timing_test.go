package timing

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeClock is a scripted clock: the time is a number the candidates
// advance, and Mark reads it.
type fakeClock struct {
	now    float64
	marks  []float64
	synced int
}

func (f *fakeClock) Name() string { return "fake clock" }
func (f *fakeClock) Mark() (int, error) {
	f.marks = append(f.marks, f.now)
	return len(f.marks) - 1, nil
}
func (f *fakeClock) Sync() error { f.synced++; return nil }
func (f *fakeClock) Elapsed(a, b int) (float64, error) {
	return f.marks[b] - f.marks[a], nil
}
func (f *fakeClock) Reset() { f.marks = f.marks[:0] }

// Rounds rotate the candidates (each runs once in every position over n
// rounds); warm-up runs them all before the first round; the trace says
// so and so do the calls the candidates see.
func TestInterleaving(t *testing.T) {
	c := &fakeClock{}
	var calls []string
	cand := func(name string, ms float64) Candidate {
		return Candidate{Name: name, Run: func() error { calls = append(calls, name); c.now += ms; return nil }}
	}
	var trace [][2]int
	res, err := Run(c, Options{Warmup: 1, Reps: 4, Trace: func(r, i int) { trace = append(trace, [2]int{r, i}) }},
		cand("A", 1), cand("B", 2), cand("C", 3))
	require.NoError(t, err)
	require.Equal(t, [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {1, 0}, {2, 2}, {2, 0}, {2, 1}, {3, 0}, {3, 1}, {3, 2}}, trace)
	require.Equal(t, strings.Fields("A B C  A B C  B C A  C A B  A B C"), calls, "warm-up, then the rotated rounds")
	for i, want := range []float64{1, 2, 3} {
		require.Equal(t, []float64{want, want, want, want}, res[i].Samples)
		require.Equal(t, want, res[i].Median)
		require.Equal(t, want, res[i].Min)
		require.Equal(t, "fake clock", res[i].Clock)
	}
	require.Equal(t, []int{2, 0, 1}, Order(5, 3))
}

// Reset runs before every run and Flush before every timed run, both
// outside the marks: what they cost is not in the samples. A failing run
// names its candidate.
func TestResetAndFlushOutsideMarks(t *testing.T) {
	c := &fakeClock{}
	resets, flushes := 0, 0
	state := 0 // what the candidate "writes"
	cd := Candidate{Name: "acc",
		Reset: func() error { resets++; state = 0; c.now += 100; return nil },
		Run: func() error {
			if state != 0 {
				return errors.New("ran on a written input")
			}
			state++
			c.now += 2
			return nil
		}}
	res, err := Run(c, Options{Warmup: 2, Reps: 5, Flush: func() error { flushes++; c.now += 50; return nil }}, cd)
	require.NoError(t, err)
	require.Equal(t, 7, resets, "before each warm-up and timed run")
	require.Equal(t, 5, flushes, "before each timed run")
	require.Equal(t, []float64{2, 2, 2, 2, 2}, res[0].Samples)

	cd.Reset = nil
	_, err = Run(c, Options{Reps: 2}, cd, Candidate{Name: "other", Run: func() error { return nil }})
	require.ErrorContains(t, err, "timed run of acc: ran on a written input")
	_, err = Run(c, Options{Reps: 0}, cd)
	require.ErrorContains(t, err, "want at least 1")
}

// The interval of the median on known samples: the order statistics the
// binomial distribution gives (n = 10: the 2nd and 9th, 97.85%; n = 100:
// the 40th and 61st, the textbook table's), [min, max] with its lower
// coverage below 6 samples, and the median of an even count.
func TestMedianInterval(t *testing.T) {
	xs := []float64{10, 3, 7, 1, 9, 5, 2, 8, 4, 6} // 1..10 shuffled
	iv, err := MedianInterval(xs, 0.95)
	require.NoError(t, err)
	require.Equal(t, 5.5, iv.Median)
	require.Equal(t, 2.0, iv.Lo)
	require.Equal(t, 9.0, iv.Hi)
	require.InDelta(t, 1-2*11.0/1024, iv.Coverage, 1e-12)
	require.Equal(t, []float64{10, 3, 7, 1, 9, 5, 2, 8, 4, 6}, xs, "the samples are not reordered")

	big := make([]float64, 100)
	for i := range big {
		big[i] = float64(i + 1)
	}
	iv, err = MedianInterval(big, 0.95)
	require.NoError(t, err)
	require.Equal(t, [2]float64{40, 61}, [2]float64{iv.Lo, iv.Hi})
	require.GreaterOrEqual(t, iv.Coverage, 0.95)
	require.Less(t, iv.Coverage, 0.97)

	iv, err = MedianInterval([]float64{3, 1, 2, 5, 4}, 0)
	require.NoError(t, err)
	require.Equal(t, Interval{Median: 3, Lo: 1, Hi: 5, Coverage: 1 - 2.0/32, N: 5}, iv)
	iv, err = MedianInterval([]float64{1, 2, 3, 4, 5, 6}, 0)
	require.NoError(t, err)
	require.Equal(t, [2]float64{1, 6}, [2]float64{iv.Lo, iv.Hi})
	require.InDelta(t, 1-2.0/64, iv.Coverage, 1e-12)

	_, err = MedianInterval(nil, 0)
	require.Error(t, err)
	_, err = MedianInterval([]float64{1}, 1.5)
	require.Error(t, err)
	// a large sample: no overflow, the interval narrows around the median
	huge := make([]float64, 20001)
	for i := range huge {
		huge[i] = float64(i)
	}
	iv, err = MedianInterval(huge, 0.95)
	require.NoError(t, err)
	require.InDelta(t, 10000, iv.Median, 0)
	require.InDelta(t, 10000-1.96*math.Sqrt(20001)/2, iv.Lo, 3)
}

// The verdict: a 10% slower candidate under noise and drift is told apart
// (and which is faster is right); two equal candidates are not, even
// under a drift that would split them if they were timed one after the
// other; four rounds are too few to tell anything at 95%.
func TestCompareVerdict(t *testing.T) {
	run := func(reps int, costA, costB, drift float64) Comparison {
		c := &fakeClock{}
		rng := rand.New(rand.NewPCG(7, 7))
		slow := 1.0
		cand := func(name string, ms float64) Candidate {
			return Candidate{Name: name, Run: func() error {
				c.now += ms * slow * (1 + 0.05*rng.NormFloat64())
				slow += drift // the machine heats up
				return nil
			}}
		}
		res, err := Run(c, Options{Warmup: 1, Reps: reps}, cand("A", costA), cand("B", costB))
		require.NoError(t, err)
		cmp, err := Compare(res[0], res[1], 0)
		require.NoError(t, err)
		return cmp
	}
	cmp := run(50, 1.0, 1.1, 0)
	require.True(t, cmp.Distinguishable, cmp.Verdict())
	require.Less(t, cmp.Hi, 1.0)
	require.Contains(t, cmp.Verdict(), "A is 1.")
	require.Contains(t, cmp.Verdict(), "faster than B: distinguishable from noise")

	cmp = run(50, 1.0, 1.0, 0.01) // 50 rounds: the last ones 2x slower than the first
	require.False(t, cmp.Distinguishable, cmp.Verdict())
	require.Contains(t, cmp.Verdict(), "not distinguishable from noise")
	require.LessOrEqual(t, cmp.Lo, 1.0)
	require.GreaterOrEqual(t, cmp.Hi, 1.0)

	cmp = run(4, 1.0, 2.0, 0)
	require.False(t, cmp.Distinguishable)
	require.Contains(t, cmp.Verdict(), "too few rounds to tell at 95%")

	_, err := Compare(Result{Name: "a", Samples: []float64{1}}, Result{Name: "b", Samples: []float64{1, 2}}, 0)
	require.ErrorContains(t, err, "same rounds")
}

// The host clock measures the host's time.
func TestHostClock(t *testing.T) {
	h := NewHostClock("host")
	res, err := Run(h, Options{Reps: 3}, Candidate{Name: "spin", Run: func() error {
		for x := 0; x < 1e5; x++ {
			_ = math.Sqrt(float64(x))
		}
		return nil
	}})
	require.NoError(t, err)
	require.Greater(t, res[0].Min, 0.0)
	require.Equal(t, "host", res[0].Clock)
}
