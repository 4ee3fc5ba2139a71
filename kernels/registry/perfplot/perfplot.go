// Package perfplot draws bench reports (registry.Report, the --json of
// `tlec bench SUITE`) as Triton's perf_report draws its benchmarks: a
// picture of a suite's rows against their floor and their peers, made
// with gonum.org/v1/plot. It draws a report saved on a GPU host as well
// as one just timed, so a run's JSON can be looked at anywhere.
//
// The picture has two panels sharing the cases as their x axis (one tick
// per row, labelled "case config"):
//
//   - the times: each report's medians (its interval as error bars), the
//     floor where the suite has one and each peer's median, on a log
//     scale (a suite's cases span microseconds to milliseconds);
//   - the speed-ups: each peer's median over ours (above 1: ours is
//     faster) with the geometric mean in the legend, the floor over ours
//     (how close to the floor a row runs), and, with a second report,
//     the first's median over the second's; a line marks parity.
package perfplot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/tlego/tle/kernels/registry"
)

// Input is one report to draw and the name its series take (a file's
// base name, "TLE-Go" for a run just timed).
type Input struct {
	Name   string
	Report registry.Report
}

// Format is what Write writes, by a file name's extension: "svg" or
// "png"; an error for anything else.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("%s: a plot is .svg or .png", path)
	}
}

// palette: ours first (blue), then the others, distinguishable in gray.
var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
}

var floorColor = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}

// shapes of the series' points, in the palette's order.
var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// maxLabel bounds a tick label; a longer one is cut with an ellipsis.
const maxLabel = 64

// Write draws the inputs as one picture in format ("svg" or "png") to w.
// The first input's rows are the x axis; the other inputs' rows are
// matched to them by case and config (rows only they have are left out).
func Write(w io.Writer, format string, in ...Input) error {
	if len(in) == 0 {
		return errors.New("perfplot: no report to draw")
	}
	base := in[0].Report
	var rows []registry.Row
	for _, r := range base.Rows {
		if r.MedianUs > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		if base.DryRun {
			return fmt.Errorf("perfplot: %s is a dry run: it timed nothing to draw", in[0].Name)
		}
		return fmt.Errorf("perfplot: %s has no timed row", in[0].Name)
	}
	key := func(r registry.Row) string { return r.Case + "\x00" + r.Config }
	index := map[string]int{}
	labels := make([]string, len(rows))
	for i, r := range rows {
		index[key(r)] = i
		labels[i] = label(r)
	}

	times := plot.New()
	times.Title.Text = fmt.Sprintf("%s on %s", base.Suite, base.Device)
	times.Title.TextStyle.Font.Size = vg.Points(14)
	times.Y.Label.Text = "median time, us (log scale)"
	times.Y.Scale = plot.LogScale{}
	times.Y.Tick.Marker = timeTicks{}
	times.X.Tick.Marker = ticks(len(rows), nil)
	times.Add(plotter.NewGrid())
	times.Legend.Top = true
	times.Legend.Left = true
	times.Legend.TextStyle.Font.Size = vg.Points(10)

	speed := plot.New()
	speed.Y.Label.Text = "time ratio, log scale (above 1: " + in[0].Name + " faster)"
	speed.Y.Scale = plot.LogScale{}
	speed.Y.Tick.Marker = ratioTicks{}
	speed.X.Tick.Marker = ticks(len(rows), labels)
	speed.X.Tick.Label.Rotation = math.Pi / 2
	speed.X.Tick.Label.XAlign = draw.XRight
	speed.X.Tick.Label.YAlign = draw.YCenter
	speed.X.Tick.Label.Font.Size = vg.Points(8)
	speed.Add(plotter.NewGrid())
	speed.Legend.Top = true
	speed.Legend.Left = true
	speed.Legend.TextStyle.Font.Size = vg.Points(10)

	series := 0
	compared := len(in) > 1 // the speed-up panel has something to show
	pointStyle := func(s *plotter.Scatter, i int) {
		s.GlyphStyle.Color = palette[i%len(palette)]
		s.GlyphStyle.Shape = shapes[i%len(shapes)]
		s.GlyphStyle.Radius = vg.Points(3)
	}
	// each report's medians, with their intervals
	for n, input := range in {
		var pts plotter.XYs
		var errs plotter.YErrors
		hasCI := false
		for _, r := range input.Report.Rows {
			i, ok := index[key(r)]
			if !ok || r.MedianUs <= 0 {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(i), Y: r.MedianUs})
			lo, hi := r.MedianUs, r.MedianUs
			if r.LoUs > 0 && r.HiUs >= r.LoUs {
				lo, hi, hasCI = min(r.LoUs, r.MedianUs), max(r.HiUs, r.MedianUs), true
			}
			errs = append(errs, struct{ Low, High float64 }{r.MedianUs - lo, hi - r.MedianUs})
		}
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		pointStyle(s, series)
		times.Add(s)
		name := input.Name + " median"
		if hasCI {
			eb, err := plotter.NewYErrorBars(errPoints{pts, errs})
			if err != nil {
				return err
			}
			eb.LineStyle.Color = palette[series%len(palette)]
			times.Add(eb)
			name += " (bars: its 95% interval)"
		}
		times.Legend.Add(name, s)
		series++
		if n > 0 { // A/B: the first report's median over this one's
			var ratio plotter.XYs
			for _, r := range input.Report.Rows {
				if i, ok := index[key(r)]; ok && r.MedianUs > 0 {
					ratio = append(ratio, plotter.XY{X: float64(i), Y: r.MedianUs / rows[i].MedianUs})
				}
			}
			if err := addRatio(speed, ratio, fmt.Sprintf("%s / %s", input.Name, in[0].Name), series-1, pointStyle); err != nil {
				return err
			}
		}
	}
	// the floor
	var floor, floorRatio plotter.XYs
	for i, r := range rows {
		if r.FloorUs > 0 {
			floor = append(floor, plotter.XY{X: float64(i), Y: r.FloorUs})
			floorRatio = append(floorRatio, plotter.XY{X: float64(i), Y: r.FloorUs / r.MedianUs})
		}
	}
	if len(floor) > 0 {
		compared = true
		s, err := plotter.NewScatter(floor)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = floorColor, draw.BoxGlyph{}, vg.Points(2.5)
		times.Add(s)
		times.Legend.Add("floor", s)
		fr, err := plotter.NewScatter(floorRatio)
		if err != nil {
			return err
		}
		fr.GlyphStyle.Color, fr.GlyphStyle.Shape, fr.GlyphStyle.Radius = floorColor, draw.BoxGlyph{}, vg.Points(2.5)
		speed.Add(fr)
		speed.Legend.Add("floor / "+in[0].Name+" (1: at the floor)", fr)
	}
	// the peers of the first report's rows
	var peers []string
	for _, r := range rows {
		for _, p := range r.Peers {
			if !slices.Contains(peers, p.Name) {
				peers = append(peers, p.Name)
			}
		}
	}
	for _, name := range peers {
		var pts, ratio plotter.XYs
		logs := 0.0
		for i, r := range rows {
			for _, p := range r.Peers {
				if p.Name == name && p.MedianUs > 0 {
					pts = append(pts, plotter.XY{X: float64(i), Y: p.MedianUs})
					ratio = append(ratio, plotter.XY{X: float64(i), Y: p.MedianUs / r.MedianUs})
					logs += math.Log(p.MedianUs / r.MedianUs)
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		compared = true
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		pointStyle(s, series)
		times.Add(s)
		times.Legend.Add(name+" median", s)
		if err := addRatio(speed, ratio, fmt.Sprintf("%s / %s (geometric mean %.2fx over %d)", name, in[0].Name, math.Exp(logs/float64(len(ratio))), len(ratio)), series, pointStyle); err != nil {
			return err
		}
		series++
	}
	if !compared {
		speed.Y.Label.Text = "(no floor or peer to compare with)"
	}
	parity, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(rows)) - 0.5, Y: 1}})
	if err != nil {
		return err
	}
	parity.LineStyle.Color = color.Black
	parity.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	speed.Add(parity)
	if err := finishAxes(times, speed, rows); err != nil {
		return err
	}
	return page(w, format, times, speed, labels)
}

// finishAxes sets both panels' ranges (with room for the legends and the
// lowest marker) and draws a line between groups of rows of one case.
func finishAxes(times, speed *plot.Plot, rows []registry.Row) error {
	for _, p := range []*plot.Plot{times, speed} {
		p.X.Min, p.X.Max = -0.5, float64(len(rows))-0.5
	}
	speed.Y.Min, speed.Y.Max = min(speed.Y.Min, 0.8), max(speed.Y.Max, 1.25)
	// room for the legends above the points, and for the lowest marker
	// below (gonum puts the smallest value on the axis itself)
	speed.Y.Min /= math.Pow(speed.Y.Max/speed.Y.Min, 0.04)
	times.Y.Min /= math.Pow(times.Y.Max/times.Y.Min, 0.04)
	speed.Y.Max *= math.Pow(speed.Y.Max/speed.Y.Min, 0.45)
	times.Y.Max *= math.Pow(times.Y.Max/times.Y.Min, 0.25)
	// a line between groups of rows of one case (when cases repeat)
	var cuts []float64
	for i := 1; i < len(rows); i++ {
		if rows[i].Case != rows[i-1].Case {
			cuts = append(cuts, float64(i)-0.5)
		}
	}
	if len(cuts) > 0 && 2*len(cuts) <= len(rows) {
		for _, p := range []*plot.Plot{times, speed} {
			for _, x := range cuts {
				l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
				if err != nil {
					return err
				}
				l.LineStyle.Color = color.Gray{Y: 0x90}
				l.LineStyle.Width = vg.Points(0.75)
				p.Add(l)
			}
		}
	}

	return nil
}

// page lays the two panels out, the times above the speed-ups with their
// data areas aligned, on a page sized for the rows and their labels, and
// writes it as SVG or PNG.
func page(w io.Writer, format string, times, speed *plot.Plot, labels []string) error {
	rows := len(labels)
	width := vg.Length(math.Max(9, 0.2*float64(rows))) * vg.Inch
	longest := 0
	for _, l := range labels {
		longest = max(longest, len(l))
	}
	labelH := vg.Length(longest) * vg.Points(4.6) // 8-point text, rotated
	height := 9*vg.Inch + labelH
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(width, height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))}
	default:
		return fmt.Errorf("perfplot: format %q: want svg or png", format)
	}
	dc := draw.New(c)
	// the times take the upper 60% of the page; both panels' data areas
	// are aligned by drawing them in one column
	top := draw.Crop(dc, 0, 0, (height-labelH)*0.4+labelH, 0)
	bottom := draw.Crop(dc, 0, 0, 0, -(height-labelH)*0.6)
	for _, p := range []*plot.Plot{times, speed} {
		p.Y.Tick.Label.Font.Size = font.Length(vg.Points(10))
	}
	top, bottom = alignX(times, speed, top, bottom)
	times.Draw(top)
	speed.Draw(bottom)
	_, err := c.WriteTo(w)
	return err
}

// addRatio adds a series of ratios to the speed-up panel.
func addRatio(p *plot.Plot, pts plotter.XYs, name string, i int, style func(*plotter.Scatter, int)) error {
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	style(s, i)
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// alignX crops the two panels' canvases so that their data areas span
// the same x range (their y axes' tick labels differ in width): the cases'
// ticks line up.
func alignX(a, b *plot.Plot, ca, cb draw.Canvas) (draw.Canvas, draw.Canvas) {
	da, db := a.DataCanvas(ca), b.DataCanvas(cb)
	left := max(da.Min.X-ca.Min.X, db.Min.X-cb.Min.X)
	right := max(ca.Max.X-da.Max.X, cb.Max.X-db.Max.X)
	ca = draw.Crop(ca, left-(da.Min.X-ca.Min.X), -(right - (ca.Max.X - da.Max.X)), 0, 0)
	cb = draw.Crop(cb, left-(db.Min.X-cb.Min.X), -(right - (cb.Max.X - db.Max.X)), 0, 0)
	return ca, cb
}

// timeTicks are a log axis's ticks for times in microseconds: labelled
// 1, 2 and 5 per decade (1 alone past four decades), in us, ms or s.
type timeTicks struct{}

func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	decades := math.Log10(hi / lo)
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (decades <= 4 && (m == 2 || m == 5)) {
				t.Label = usLabel(v)
			}
			out = append(out, t)
		}
	}
	return out
}

// usLabel is a time in microseconds as a tick label.
func usLabel(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%g s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%g ms", us/1e3)
	}
	return fmt.Sprintf("%g us", us)
}

// ratioTicks are the speed-up axis's ticks: round ratios, as 1.5x.
type ratioTicks struct{}

func (ratioTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	fine := hi/lo <= 8 // a narrow range: quarter steps near 1
	for _, v := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4, 5, 10, 20, 50, 100} {
		if !fine && (v == 0.25 || v == 0.75 || v == 1.25 || v == 3) {
			continue
		}
		if v >= lo && v <= hi {
			out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%gx", v)})
		}
	}
	return out
}

// errPoints are points with their y errors, for YErrorBars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// label is a row's tick label: its case and config, cut to maxLabel.
func label(r registry.Row) string {
	s := r.Case
	if r.Config != "" {
		s += "  " + r.Config
	}
	if len(s) > maxLabel {
		s = s[:maxLabel-1] + "…"
	}
	return s
}

// ticks are a tick per row at 0..n-1, labelled by labels (none when nil).
func ticks(n int, labels []string) plot.ConstantTicks {
	out := make(plot.ConstantTicks, n)
	for i := range out {
		out[i].Value = float64(i)
		if labels != nil {
			out[i].Label = labels[i]
		}
	}
	return out
}
