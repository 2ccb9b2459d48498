package present

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/fg-infer/fg/infer"
)

// element is one scalar of a variable drawn in a marginals panel.
type element struct {
	name string
	idx  int
	lab  string
}

// plotElements lists up to MaxPlotElements elements of the variables for
// which keep returns true, in order of first appearance.
func plotElements(rs []*infer.Result, keep func(*infer.Variable) bool) ([]element, int) {
	var els []element
	total := 0
	for _, name := range varNames(rs) {
		for _, r := range rs {
			v := findVar(r, name)
			if v == nil {
				continue
			}
			if keep(v) {
				n := varLen(v)
				total += n
				for i := 0; i < n && len(els) < MaxPlotElements; i++ {
					els = append(els, element{name, i, infer.ElementName(name, v.Shape, i)})
				}
			}
			break
		}
	}
	return els, total
}

// marginalPanel draws posterior means with ±1 sd error bars, one colour per
// result, slightly dodged so the bars do not overlap.
func marginalPanel(rs []*infer.Result) *plot.Plot {
	els, total := plotElements(rs, func(v *infer.Variable) bool { return !v.Discrete })
	if len(els) == 0 {
		return nil
	}
	p := newPlot(panelTitle("posterior mean ± 1 sd", len(els), total), "", "value")
	n := 0
	for i, r := range rs {
		pts := dodged(rs, i, els, func(v *infer.Variable, k int) (float64, float64, bool) {
			if k >= len(v.Mean) || v.Discrete {
				return 0, 0, false
			}
			return v.Mean[k], math.Sqrt(at(v.Var, k)), true
		})
		if addErrorPoints(p, r.Label, i, pts) {
			n++
		}
	}
	headroom(p, 0.1*float64(n), false)
	setElementTicks(p, els)
	return p
}

// discretePanel draws P(last state) per element of discrete variables,
// with Monte Carlo standard errors as bars when a sampler reports them.
func discretePanel(rs []*infer.Result) *plot.Plot {
	els, total := plotElements(rs, func(v *infer.Variable) bool { return v.Discrete })
	if len(els) == 0 {
		return nil
	}
	p := newPlot(panelTitle("marginal P(last state)", len(els), total), "", "probability")
	n := 0
	for i, r := range rs {
		pts := dodged(rs, i, els, func(v *infer.Variable, k int) (float64, float64, bool) {
			if k >= len(v.Probs) || !v.Discrete || len(v.Probs[k]) == 0 {
				return 0, 0, false
			}
			last := len(v.Probs[k]) - 1
			se := 0.0
			if k < len(v.ProbsSE) && last < len(v.ProbsSE[k]) {
				se = v.ProbsSE[k][last]
			}
			return v.Probs[k][last], se, true
		})
		if addErrorPoints(p, r.Label, i, pts) {
			n++
		}
	}
	p.Y.Min, p.Y.Max = 0, 1+0.1*float64(n)
	setElementTicks(p, els)
	return p
}

func panelTitle(t string, shown, total int) string {
	if shown < total {
		return t + " (first " + itoa(shown) + " of " + itoa(total) + " elements)"
	}
	return t
}

func itoa(n int) string { return num(float64(n)) }

// errPoints are (x, y, ±err) triples for plotter.YErrorBars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// dodged evaluates f on every element for result i and offsets x so that
// the results sit side by side around each integer position.
func dodged(rs []*infer.Result, i int, els []element, f func(*infer.Variable, int) (float64, float64, bool)) errPoints {
	var pts errPoints
	width := 0.6
	off := 0.0
	if len(rs) > 1 {
		off = -width/2 + width*float64(i)/float64(len(rs)-1)
	}
	for x, e := range els {
		v := findVar(rs[i], e.name)
		if v == nil {
			continue
		}
		y, s, ok := f(v, e.idx)
		if !ok || math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			s = 0
		}
		pts.XYs = append(pts.XYs, plotter.XY{X: float64(x) + off, Y: y})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{s, s})
	}
	return pts
}

// addErrorPoints adds one result's points with error bars and reports
// whether there was anything to draw.
func addErrorPoints(p *plot.Plot, label string, i int, pts errPoints) bool {
	if len(pts.XYs) == 0 {
		return false
	}
	s, err := plotter.NewScatter(pts.XYs)
	if err != nil {
		return false
	}
	s.Color, s.Shape, s.Radius = plotutil.Color(i), plotutil.Shape(i), vg.Points(3)
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return false
	}
	eb.Color = plotutil.Color(i)
	eb.Width = vg.Points(1.2)
	p.Add(eb, s)
	p.Legend.Add(label, s)
	return true
}

// setElementTicks labels the x axis with element names (every k-th one when
// there are many) and pads the range.
func setElementTicks(p *plot.Plot, els []element) {
	step := 1 + len(els)/16
	var ticks []plot.Tick
	for x, e := range els {
		lab := ""
		if x%step == 0 {
			lab = e.lab
		}
		ticks = append(ticks, plot.Tick{Value: float64(x), Label: lab})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.7, float64(len(els))-0.3
	if len(els) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = -1
		p.X.Tick.Label.YAlign = -0.5
	}
}
