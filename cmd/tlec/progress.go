package main

import (
	"fmt"
	"io"
	"strings"
)

// progressBar draws a one-line bar on a terminal stream (standard error):
// "[=======>      ] 3/12 measure H=96 T=8192". Each update rewrites the line;
// done ends it.
type progressBar struct {
	w     io.Writer
	width int
	last  int // length of the last line drawn
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w, width: 30} }

func (p *progressBar) update(done, total int, what string) {
	if total <= 0 {
		return
	}
	done = min(max(done, 0), total)
	fill := p.width * done / total
	bar := strings.Repeat("=", fill)
	if fill < p.width {
		bar += ">" + strings.Repeat(" ", p.width-fill-1)
	}
	line := fmt.Sprintf("[%s] %d/%d %s", bar, done, total, what)
	pad := ""
	if n := p.last - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.last = len(line)
}

func (p *progressBar) done() {
	if p.last > 0 {
		fmt.Fprintln(p.w)
		p.last = 0
	}
}
