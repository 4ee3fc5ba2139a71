package timing

import (
	"fmt"
	"time"
)

// HostClock is a Clock of the host's monotonic clock, for work the host
// does itself (the interpreter): Mark reads the time, Sync has nothing to
// wait for.
type HostClock struct {
	name  string
	marks []time.Time
}

// NewHostClock is a host clock that reports itself as name.
func NewHostClock(name string) *HostClock { return &HostClock{name: name} }

func (h *HostClock) Name() string { return h.name }

func (h *HostClock) Mark() (int, error) {
	h.marks = append(h.marks, time.Now())
	return len(h.marks) - 1, nil
}

func (h *HostClock) Sync() error { return nil }

func (h *HostClock) Elapsed(a, b int) (float64, error) {
	if a < 0 || b < 0 || a >= len(h.marks) || b >= len(h.marks) {
		return 0, fmt.Errorf("timing: marks %d and %d of %d", a, b, len(h.marks))
	}
	return float64(h.marks[b].Sub(h.marks[a])) / float64(time.Millisecond), nil
}

func (h *HostClock) Reset() { h.marks = h.marks[:0] }
