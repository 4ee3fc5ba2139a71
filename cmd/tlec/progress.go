package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/schollz/progressbar/v3"
)

// progressBar shows the progress of a long measurement on standard error,
// through github.com/schollz/progressbar: "3/12 measure H=96 T=8192 [===>  ]".
type progressBar struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w} }

// update moves the bar to done of total steps and names the current one.
func (p *progressBar) update(done, total int, what string) {
	if total <= 0 {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Describe(what)
	p.bar.Set(min(max(done, 0), total))
}

// done finishes the bar and ends its line.
func (p *progressBar) done() {
	if p.bar != nil {
		p.bar.Finish()
		io.WriteString(p.w, "\n")
	}
}

// launchProgress shows, on a terminal, how many programs of an
// interpreter launch are done and how long it has run, from one second
// into the launch on (a quick run draws nothing, and a runaway loop, which
// finishes no program, still shows its time passing). Its update is
// called by the interpreter's workers, concurrently.
type launchProgress struct {
	mu          sync.Mutex
	w           io.Writer
	start       time.Time
	done, total int
	bar         *progressBar
	stop        chan struct{}
	stopped     chan struct{}
}

// newLaunchProgress starts the display on w when w is a terminal; on
// anything else (a file, a pipe, a test's buffer) it draws nothing.
func newLaunchProgress(w io.Writer) *launchProgress {
	p := &launchProgress{w: w, start: time.Now()}
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return p
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

// update records that done of total programs are finished.
func (p *launchProgress) update(done, total int) {
	p.mu.Lock()
	p.done, p.total = max(p.done, done), total
	p.mu.Unlock()
}

func (p *launchProgress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start)
	if el < time.Second || p.total == 0 {
		return
	}
	if p.bar == nil {
		p.bar = newProgressBar(p.w)
	}
	p.bar.update(p.done, p.total, fmt.Sprintf("programs done, %s", el.Round(time.Second)))
}

// finish stops the display and ends its line.
func (p *launchProgress) finish() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.done()
	}
}
