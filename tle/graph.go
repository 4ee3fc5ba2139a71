package tle

import (
	"errors"
	"fmt"

	"github.com/tlego/tle/runtime/cuda"
)

// GraphStep is one launch of a Graph: a prepared launch and its options.
type GraphStep struct {
	Launch  *Prepared
	Options LaunchOptions
}

// Graph is a sequence of prepared launches recorded once as a CUDA graph
// and replayed by one driver call (cuGraphLaunch), as a serving loop runs a
// step whose launches do not change: the CPU cost of a replay is one call,
// not one per kernel, so a step of short kernels is not held up by the
// launches. A programmatic dependent launch (LaunchOptions.PDL) keeps its
// overlap inside the graph (a programmatic edge). The graph replays the
// arguments its launches had when it was captured: the kernels read the
// device buffers' current contents, but a new argument (another buffer, a
// new length passed by value) needs a new graph. A graph whose launches
// were closed (Prepared.Close; their buffers may be freed) refuses to
// replay.
type Graph struct {
	g     *GPU
	exec  *cuda.GraphExec
	steps []*Prepared
	dry   bool // captured on a dry GPU: replays do nothing
}

// Capture records steps, in order, into a graph on g (nothing runs). Each
// step is checked as LaunchWith checks it.
func (g *GPU) Capture(steps ...GraphStep) (*Graph, error) {
	if err := g.check("Capture"); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, errors.New("tle: Capture of no launches")
	}
	for i, st := range steps {
		if st.Launch == nil {
			return nil, fmt.Errorf("tle: Capture: step %d has no launch", i)
		}
		if st.Launch.g.ctx != g.ctx {
			return nil, fmt.Errorf("tle: Capture: step %d (%s) was prepared on another GPU", i, st.Launch.gk.bin.Kernel)
		}
		if err := st.Options.check(st.Launch.gk.bin); err != nil && g.dry == nil {
			return nil, err
		}
	}
	if g.dry != nil {
		gr := &Graph{g: g, dry: true}
		for _, st := range steps {
			gr.steps = append(gr.steps, st.Launch)
		}
		return gr, nil
	}
	// the GPU's lock: nothing of g synchronises the context (which a
	// capture in progress forbids) while the stream captures
	mu := g.lock()
	mu.Lock()
	defer mu.Unlock()
	s, err := g.ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return nil, err
	}
	defer s.Destroy()
	if err := s.BeginCapture(); err != nil {
		return nil, err
	}
	var launchErr error
	for _, st := range steps {
		if launchErr = st.Launch.launchOn(s, st.Options); launchErr != nil {
			break
		}
	}
	exec, err := s.EndCapture() // ends the capture whether or not a launch failed
	if launchErr != nil {
		if exec != nil {
			exec.Destroy()
		}
		return nil, fmt.Errorf("tle: Capture: %w", launchErr)
	}
	if err != nil {
		return nil, fmt.Errorf("tle: Capture: %w", err)
	}
	gr := &Graph{g: g, exec: exec}
	for _, st := range steps {
		gr.steps = append(gr.steps, st.Launch)
	}
	return gr, nil
}

// Launch enqueues one replay of the graph; it does not wait.
func (gr *Graph) Launch() error {
	if gr.dry {
		return nil
	}
	if gr.exec == nil {
		return errors.New("tle: launch of a closed graph")
	}
	for _, p := range gr.steps {
		if p.l.Closed() {
			return fmt.Errorf("tle: launch of a graph whose launch of %s was closed (its arguments may be freed): capture a new graph", p.gk.bin.Kernel)
		}
	}
	return gr.exec.Launch(nil)
}

// Close frees the graph.
func (gr *Graph) Close() error {
	if gr.exec == nil {
		return nil
	}
	err := gr.exec.Destroy()
	gr.exec = nil
	return err
}
