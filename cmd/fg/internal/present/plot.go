package present

import (
	"errors"
	"fmt"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/fg-infer/fg/infer"
)

// Boundary describes a 2-D classification problem for the decision-boundary
// panel: the training points with their ±1 labels (and the factor label of
// each point's likelihood, to circle relaxed points), and a regular grid of
// inputs at which every result carries the prediction named Pred, ordered
// with x changing fastest: row k is (Xs[k mod len(Xs)], Ys[k div len(Xs)]).
type Boundary struct {
	Points  [][2]float64
	Labels  []float64
	Factors []string
	Xs, Ys  []float64
	Pred    string
	XLabel  string
	YLabel  string
}

// maxTraceMarkers: longer traces are drawn as lines without markers.
const maxTraceMarkers = 30

// MaxPlotElements caps how many elements of the marginals panel are drawn.
const MaxPlotElements = 40

// WritePlot draws the convergence traces of all results (log-scale y), the
// marginal means with ±1 sd error bars per result, discrete marginals, and,
// when b is non-nil, each result's decision boundary p = 0.5 over the
// training data, as panels of one PNG file.
func WritePlot(path, model string, rs []*infer.Result, b *Boundary) (err error) {
	defer func() { // gonum/plot panics on some degenerate inputs
		if p := recover(); p != nil {
			err = fmt.Errorf("plot: %v", p)
		}
	}()
	panels := buildPanels(model, rs, b)
	if len(panels) == 0 {
		return errors.New("plot: nothing to plot (no traces, marginals or boundary)")
	}
	return savePanels(path, panels)
}

func buildPanels(model string, rs []*infer.Result, b *Boundary) []*plot.Plot {
	var ps []*plot.Plot
	if p := tracePanel(rs); p != nil {
		ps = append(ps, p)
	}
	if p := marginalPanel(rs); p != nil {
		ps = append(ps, p)
	}
	if p := discretePanel(rs); p != nil {
		ps = append(ps, p)
	}
	if b != nil {
		if p := boundaryPanel(rs, b); p != nil {
			ps = append(ps, p)
		}
	}
	if len(ps) > 0 && model != "" {
		ps[0].Title.Text = model + ": " + ps[0].Title.Text
	}
	return ps
}

// savePanels lays the panels out two per row and writes a PNG.
func savePanels(path string, ps []*plot.Plot) error {
	cols := min(2, len(ps))
	rows := (len(ps) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range grid[i] {
			if k := i*cols + j; k < len(ps) {
				grid[i][j] = ps[k]
			}
		}
	}
	const w, h = 6.5 * vg.Inch, 4.8 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w*vg.Length(cols), h*vg.Length(rows)), vgimg.UseDPI(110))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 8, PadY: vg.Millimeter * 8,
		PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	return p
}

// headroom raises the top of the y range by a fraction of it so the legend
// (top right) does not cover data; on a log axis the fraction is of decades.
func headroom(p *plot.Plot, frac float64, log bool) {
	if log {
		if p.Y.Min > 0 && p.Y.Max > p.Y.Min {
			p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, frac)
		}
		return
	}
	p.Y.Max += frac * (p.Y.Max - p.Y.Min)
}

// tracePanel plots R(iter) per result on a log scale; non-positive and
// non-finite values cannot be shown on a log axis and are left out.
func tracePanel(rs []*infer.Result) *plot.Plot {
	p := newPlot("convergence", "sweep", "R (log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.X.Tick.Marker = intTicks{}
	n := 0
	for i, r := range rs {
		var xy plotter.XYs
		for k, v := range r.Trace {
			if v > 0 && !math.IsInf(v, 0) {
				xy = append(xy, plotter.XY{X: float64(k + 1), Y: v})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			continue
		}
		l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
		l.Width = vg.Points(1.5)
		s.Shape = plotutil.Shape(i)
		if len(xy) > maxTraceMarkers { // markers would merge into a smear
			p.Add(l)
			p.Legend.Add(r.Label, l)
		} else {
			p.Add(l, s)
			p.Legend.Add(r.Label, l, s)
		}
		n++
	}
	if n == 0 {
		return nil
	}
	headroom(p, 0.1*float64(n), true)
	return p
}
