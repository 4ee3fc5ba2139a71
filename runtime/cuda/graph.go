package cuda

import (
	"fmt"
	"unsafe"
)

// StreamCaptureModeRelaxed is CU_STREAM_CAPTURE_MODE_RELAXED: the capture
// does not forbid driver calls of other threads (the Go runtime moves a
// goroutine between OS threads between calls).
const StreamCaptureModeRelaxed = 2

// GraphExec is an instantiated CUDA graph (CUgraphExec) and the graph
// (CUgraph) it was made from.
type GraphExec struct {
	c        *Context
	h, graph uintptr
}

// BeginCapture is cuStreamBeginCapture: the work enqueued into s from now
// on (kernel launches, with their attributes: a programmatic dependent
// launch becomes a programmatic edge) is recorded into a graph, not run,
// until EndCapture. s must not be the legacy default stream. A driver
// without the graph entry points (older than CUDA 12) gives an error that
// matches ErrNoDriver.
func (s *Stream) BeginCapture() error {
	if s == nil || s.h == 0 {
		return fmt.Errorf("cuda: stream capture needs a stream of its own, not the legacy default stream")
	}
	d := s.c.d
	for _, f := range []struct {
		name string
		p    uintptr
	}{{"cuStreamBeginCapture_v2", d.cuStreamBeginCapture}, {"cuStreamEndCapture", d.cuStreamEndCapture},
		{"cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags}, {"cuGraphLaunch", d.cuGraphLaunch},
		{"cuGraphExecDestroy", d.cuGraphExecDestroy}, {"cuGraphDestroy", d.cuGraphDestroy}} {
		if err := d.needOptional(f.name, f.p); err != nil {
			return err
		}
	}
	return s.c.do("cuStreamBeginCapture_v2", d.cuStreamBeginCapture, s.h, StreamCaptureModeRelaxed)
}

// EndCapture is cuStreamEndCapture then cuGraphInstantiateWithFlags: the
// captured work as a graph ready to launch.
func (s *Stream) EndCapture() (*GraphExec, error) {
	d := s.c.d
	if err := d.needOptional("cuStreamEndCapture", d.cuStreamEndCapture); err != nil {
		return nil, err
	}
	e := &GraphExec{c: s.c}
	if err := s.c.do("cuStreamEndCapture", d.cuStreamEndCapture, s.h, uintptr(unsafe.Pointer(&e.graph))); err != nil {
		return nil, err
	}
	if err := s.c.do("cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags, uintptr(unsafe.Pointer(&e.h)), e.graph, 0); err != nil {
		e.Destroy()
		return nil, err
	}
	return e, nil
}

// Launch is cuGraphLaunch into s (nil: the legacy default stream).
func (e *GraphExec) Launch(s *Stream) error {
	if e.h == 0 {
		return fmt.Errorf("cuda: launch of a destroyed graph")
	}
	return e.c.do("cuGraphLaunch", e.c.d.cuGraphLaunch, e.h, s.handle())
}

// Destroy is cuGraphExecDestroy and cuGraphDestroy.
func (e *GraphExec) Destroy() error {
	err := e.c.destroy("cuGraphExecDestroy", e.c.d.cuGraphExecDestroy, &e.h)
	if g := e.c.destroy("cuGraphDestroy", e.c.d.cuGraphDestroy, &e.graph); err == nil {
		err = g
	}
	return err
}
