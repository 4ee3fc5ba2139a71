package main

import (
	"io"

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
