package present

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fg-infer/fg/infer"
)

// gridZ adapts one result's grid prediction to plotter.GridXYZ.
type gridZ struct {
	xs, ys []float64
	z      []float64
}

func (g gridZ) Dims() (int, int)        { return len(g.xs), len(g.ys) }
func (g gridZ) Z(c, r int) float64      { return g.z[r*len(g.xs)+c] }
func (g gridZ) X(c int) float64         { return g.xs[c] }
func (g gridZ) Y(r int) float64         { return g.ys[r] }
func (g gridZ) Min() (float64, float64) { return 0, 1 }

// onePalette is a palette of a single colour, so each result's contour has
// its own colour.
type onePalette struct{ c color.Color }

func (p onePalette) Colors() []color.Color { return []color.Color{p.c} }

// boundaryPanel draws the training points (filled for +1, open for −1),
// circles the points whose factor some relaxed result relaxed (b ≠ 0), and
// each result's contour p(y = +1) = 0.5 (or predictive mean 0 when the
// prediction has no probability).
func boundaryPanel(rs []*infer.Result, b *Boundary) *plot.Plot {
	p := newPlot("decision boundary p(y = +1) = 0.5", b.XLabel, b.YLabel)
	addTrainingPoints(p, b)
	addRelaxedRings(p, rs, b)
	n := 0
	for i, r := range rs {
		z, level, ok := gridValues(r, b)
		if !ok {
			continue
		}
		c := plotter.NewContour(gridZ{b.Xs, b.Ys, z}, []float64{level}, onePalette{plotutil.Color(i)})
		c.LineStyles = []draw.LineStyle{{Color: plotutil.Color(i), Width: vg.Points(2), Dashes: plotutil.Dashes(i)}}
		p.Add(c)
		p.Legend.Add(r.Label, &plotter.Line{LineStyle: c.LineStyles[0]})
		n++
	}
	if n == 0 {
		return nil
	}
	p.X.Min, p.X.Max = b.Xs[0], b.Xs[len(b.Xs)-1]
	p.Y.Min, p.Y.Max = b.Ys[0], b.Ys[len(b.Ys)-1]
	return p
}

// gridValues returns the values to contour and the level of the boundary.
func gridValues(r *infer.Result, b *Boundary) ([]float64, float64, bool) {
	pr := findPred(r, b.Pred)
	want := len(b.Xs) * len(b.Ys)
	if pr == nil || want == 0 {
		return nil, 0, false
	}
	// The level is nudged off the exact value: a grid point lying exactly on
	// it (p = 0.5 at the origin of a linear model) makes degenerate contour
	// segments that plot as stray marks.
	nx := len(b.Xs)
	if len(pr.Prob) == want {
		return fillNonFinite(pr.Prob, nx, 0.5), math.Nextafter(0.5, 1), true
	}
	if len(pr.Mean) == want {
		return fillNonFinite(pr.Mean, nx, 0), math.Nextafter(0, 1), true
	}
	return nil, 0, false
}

// fillNonFinite returns a copy of the grid z (rows of nx) where every
// non-finite value is replaced by the mean of its finite 4-neighbours, or
// by def when there are none: contouring cannot cross a NaN (a linear
// model's predictive variance is 0 at the origin, where p is 0/0).
func fillNonFinite(z []float64, nx int, def float64) []float64 {
	out := append([]float64(nil), z...)
	finite := func(k int) bool { return !math.IsNaN(z[k]) && !math.IsInf(z[k], 0) }
	for k := range z {
		if finite(k) {
			continue
		}
		sum, n := 0.0, 0
		for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			c, r := k%nx+d[0], k/nx+d[1]
			if j := r*nx + c; c >= 0 && c < nx && r >= 0 && j < len(z) && finite(j) {
				sum += z[j]
				n++
			}
		}
		out[k] = def
		if n > 0 {
			out[k] = sum / float64(n)
		}
	}
	return out
}

func addTrainingPoints(p *plot.Plot, b *Boundary) {
	var pos, neg plotter.XYs
	for i, pt := range b.Points {
		if i < len(b.Labels) && b.Labels[i] > 0 {
			pos = append(pos, plotter.XY{X: pt[0], Y: pt[1]})
		} else {
			neg = append(neg, plotter.XY{X: pt[0], Y: pt[1]})
		}
	}
	add := func(xy plotter.XYs, shape draw.GlyphDrawer, label string) {
		if len(xy) == 0 {
			return
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return
		}
		s.Shape, s.Color, s.Radius = shape, color.Gray{Y: 40}, vg.Points(3)
		p.Add(s)
		p.Legend.Add(label, s)
	}
	add(pos, draw.CircleGlyph{}, "y = +1")
	add(neg, draw.RingGlyph{}, "y = −1")
}

// addRelaxedRings circles training points whose factor has b ≠ 0 in any
// result (relaxed EP's "likely mislabeled" points).
func addRelaxedRings(p *plot.Plot, rs []*infer.Result, b *Boundary) {
	relaxed := map[string]bool{}
	for _, r := range rs {
		for _, x := range r.Relaxation {
			if x.B != 0 {
				relaxed[x.Factor] = true
			}
		}
	}
	var xy plotter.XYs
	for i, f := range b.Factors {
		if relaxed[f] && i < len(b.Points) {
			xy = append(xy, plotter.XY{X: b.Points[i][0], Y: b.Points[i][1]})
		}
	}
	if len(xy) == 0 {
		return
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return
	}
	s.Shape, s.Color, s.Radius = draw.RingGlyph{}, color.RGBA{R: 220, A: 255}, vg.Points(8)
	p.Add(s)
	p.Legend.Add("relaxed (b ≠ 0)", s)
}
