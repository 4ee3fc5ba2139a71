package timing

import (
	"fmt"
	"math"
	"slices"
)

// DefaultLevel is the confidence level of the intervals when none is given.
const DefaultLevel = 0.95

// Interval is a sample's median with a distribution-free confidence
// interval for the population median.
//
// The interval is [X(l), X(n+1-l)], order statistics of the sorted sample:
// the number of observations below the true median is Binomial(n, 1/2)
// whatever the distribution of the times (only independence and a
// continuous distribution are assumed), so l is the largest rank with
// P(B <= l-1) <= (1-level)/2 and the interval covers the median with
// probability Coverage = 1 - 2 P(B <= l-1) >= level. This is the interval
// the sign test inverts. It was chosen over a bootstrap of the median
// because it is exact for small samples (a bootstrap of the median is
// discrete and under-covers at the 10-50 reps a kernel is timed with),
// deterministic (the same samples give the same interval: tests and
// reports reproduce) and free of any shape assumption: kernel times are
// skewed, with a long tail of interrupted runs, which neither the mean
// nor a normal approximation describes. With fewer than 6 samples no pair
// of order statistics reaches 95%: the interval is then [min, max] and
// Coverage says how much less it covers.
type Interval struct {
	Median   float64
	Lo, Hi   float64
	Coverage float64 // the probability [Lo, Hi] covers the median
	N        int
}

// MedianInterval is xs's median (the mean of the two middle values for an
// even count) and its interval at level (0: DefaultLevel). xs is not
// modified. An empty sample is an error.
func MedianInterval(xs []float64, level float64) (Interval, error) {
	n := len(xs)
	if n == 0 {
		return Interval{}, fmt.Errorf("timing: the median of no samples")
	}
	if level == 0 {
		level = DefaultLevel
	}
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("timing: confidence level %v: want 0 < level < 1", level)
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	iv := Interval{N: n, Median: s[n/2]}
	if n%2 == 0 {
		iv.Median = (s[n/2-1] + s[n/2]) / 2
	}
	l, cov := orderRank(n, level)
	iv.Lo, iv.Hi, iv.Coverage = s[l-1], s[n-l], cov
	return iv, nil
}

// orderRank is the rank l (1-based) of the lower end of the median's
// interval over n samples at level, and the interval's coverage.
func orderRank(n int, level float64) (int, float64) {
	alpha := (1 - level) / 2
	l := 1
	cdf := binomCDF(n, 0) // P(B <= l-1)
	for l+1 <= (n+1)/2 {
		next := cdf + binomPMF(n, l) // P(B <= l)
		if next > alpha {
			break
		}
		l, cdf = l+1, next
	}
	return l, 1 - 2*cdf
}

// binomPMF is P(B = k) for B ~ Binomial(n, 1/2), through log-gamma so
// that large n neither overflows nor loses the central terms.
func binomPMF(n, k int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) - float64(n)*math.Ln2)
}

// binomCDF is P(B <= k) for B ~ Binomial(n, 1/2).
func binomCDF(n, k int) float64 {
	s := 0.0
	for i := 0; i <= k; i++ {
		s += binomPMF(n, i)
	}
	return s
}

// Comparison says whether two candidates timed in the same rounds differ
// by more than noise.
//
// The test is paired by round: candidates timed in one round share the
// state of the machine (clocks, temperature, other tenants), so each
// round gives a ratio A/B, and the ratios' median has the same
// order-statistics interval as a time's median (the sign test inverted:
// distribution-free, no assumption that A's and B's noise look alike).
// The difference is distinguishable when that interval excludes 1: the
// two-sided sign test of "the median ratio is 1" rejects at 1 - level.
// Rounds where A and B took the same time (ratio 1, as happens at the
// event clock's resolution) count against distinguishing them.
type Comparison struct {
	A, B string
	// Ratio is the median over rounds of A's time over B's: below 1, A is
	// faster. Lo and Hi bound it with Coverage.
	Ratio, Lo, Hi float64
	Coverage      float64
	// Level is the confidence level asked for.
	Level  float64
	Rounds int
	// Distinguishable is true when [Lo, Hi] excludes 1 and Coverage
	// reaches the level asked for.
	Distinguishable bool
}

// Test names the test behind Distinguishable, for reports.
const Test = "paired sign test on per-round time ratios (distribution-free interval for the median ratio)"

// Compare compares a and b, which must come from the same run (their
// samples are paired by round), at level (0: DefaultLevel).
func Compare(a, b Result, level float64) (Comparison, error) {
	if level == 0 {
		level = DefaultLevel
	}
	if len(a.Samples) != len(b.Samples) || len(a.Samples) == 0 {
		return Comparison{}, fmt.Errorf("timing: compare %s (%d rounds) with %s (%d rounds): want the same rounds of one run", a.Name, len(a.Samples), b.Name, len(b.Samples))
	}
	ratios := make([]float64, len(a.Samples))
	for i := range ratios {
		if b.Samples[i] <= 0 || a.Samples[i] < 0 {
			return Comparison{}, fmt.Errorf("timing: compare: round %d timed %s at %g ms and %s at %g ms", i, a.Name, a.Samples[i], b.Name, b.Samples[i])
		}
		ratios[i] = a.Samples[i] / b.Samples[i]
	}
	iv, err := MedianInterval(ratios, level)
	if err != nil {
		return Comparison{}, err
	}
	c := Comparison{A: a.Name, B: b.Name, Ratio: iv.Median, Lo: iv.Lo, Hi: iv.Hi, Coverage: iv.Coverage, Level: level, Rounds: iv.N}
	c.Distinguishable = iv.Coverage >= level && (iv.Lo > 1 || iv.Hi < 1)
	return c, nil
}

// Verdict is the comparison in one sentence.
func (c Comparison) Verdict() string {
	rel := func(r float64) string {
		if r < 1 {
			return fmt.Sprintf("%.3fx faster", 1/r)
		}
		return fmt.Sprintf("%.3fx slower", r)
	}
	span := fmt.Sprintf("time ratio %.4f, %.0f%% interval [%.4f, %.4f], over %d rounds", c.Ratio, 100*c.Coverage, c.Lo, c.Hi, c.Rounds)
	switch {
	case c.Distinguishable:
		return fmt.Sprintf("%s is %s than %s: distinguishable from noise (%s)", c.A, rel(c.Ratio), c.B, span)
	case c.Coverage < c.Level:
		return fmt.Sprintf("%s and %s: too few rounds to tell at %.0f%% (%s)", c.A, c.B, 100*c.Level, span)
	}
	return fmt.Sprintf("%s and %s: not distinguishable from noise (%s)", c.A, c.B, span)
}
