package factor

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
)

// window is a region [centre − 12·width, centre + 12·width] where a tilted
// integrand may carry mass.
type window struct{ centre, width float64 }

// legendreN is the Gauss–Legendre order on each piece of quadTilted.
const legendreN = 20

// piecesPerWindow splits each window into pieces of 2 widths.
const piecesPerWindow = 12

// quadTilted is the Tilted rule of a likelihood without a closed form
// (poisson_log, the Student-t likelihood): it integrates
//
//	Z = ∫ p(y | f)^u N(f; m, v) df,  m̂ = E f,  v̂ = Var f  under p^u N / Z
//
// by composite Gauss–Legendre quadrature (20 nodes per piece) over the
// windows where the integrand can carry mass: the cavity (m ± 12√v), the
// mode of log p^u N found by safeguarded Newton steps (± 12 curvature
// widths), and the windows the likelihood names (e.g. its location). Each
// window is cut into 12 pieces; overlapping windows refine each other.
// Everything is in the log domain, so far-out cavities do not underflow.
// It returns log Z, d1 = (m̂ − m)/v, d2 = (v̂ − v)/v², and E[log p] under
// the tilted distribution (for relaxed EP's cost, u = 1).
func quadTilted(logp func(f float64) (v, g, h float64), m, v, u float64, extra ...window) (logZ, d1, d2, elog float64) {
	sv := math.Sqrt(v)
	ws := append([]window{{m, sv}, tiltedMode(logp, m, v, u)}, extra...)
	cuts := cutsOf(ws)
	x, wt := legendre()
	n := (len(cuts) - 1) * len(x)
	fs, lw, lp := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	mx := math.Inf(-1)
	for c := 0; c+1 < len(cuts); c++ {
		a, b := cuts[c], cuts[c+1]
		for q := range x {
			f := 0.5*(b-a)*x[q] + 0.5*(a+b)
			l, _, _ := logp(f)
			d := f - m
			w := math.Log(0.5*(b-a)*wt[q]) + u*l - d*d/(2*v)
			fs, lw, lp = append(fs, f), append(lw, w), append(lp, l)
			mx = math.Max(mx, w)
		}
	}
	if math.IsInf(mx, -1) || math.IsNaN(mx) {
		return math.Inf(-1), 0, 0, math.NaN()
	}
	var z, e1, e2, el float64
	for k, f := range fs {
		w := math.Exp(lw[k] - mx)
		d := f - m
		z += w
		e1 += w * d
		e2 += w * d * d
		if w > 0 {
			el += w * lp[k]
		}
	}
	e1 /= z
	vh := e2/z - e1*e1
	logZ = mx + math.Log(z) - 0.5*math.Log(2*math.Pi*v)
	return logZ, e1 / v, (vh - v) / (v * v), el / z
}

// tiltedMode locates the mode of φ(f) = u log p(y | f) − (f − m)²/(2v) by
// Newton steps with the curvature bounded above by −1/(2v) (φ need not be
// concave), and returns it with the width 1/√(−φ”) there.
func tiltedMode(logp func(f float64) (v, g, h float64), m, v, u float64) window {
	f := m
	curv := -1 / v
	for it := 0; it < 100; it++ {
		_, g, h := logp(f)
		d := u*g - (f-m)/v
		curv = math.Min(u*h-1/v, -1/(2*v))
		step := -d / curv
		if math.IsNaN(step) || math.IsInf(step, 0) {
			break
		}
		step = math.Max(-10*math.Sqrt(v), math.Min(10*math.Sqrt(v), step))
		f += step
		if math.Abs(step) < 1e-10*(1+math.Abs(f)) {
			break
		}
	}
	return window{f, 1 / math.Sqrt(-curv)}
}

// cutsOf returns the sorted piece boundaries of the windows; a gap
// between windows is cut into pieces of at most 2 widths of the widest
// window (at most maxGapPieces of them).
func cutsOf(ws []window) []float64 {
	var cuts []float64
	wide := 0.0
	for _, w := range ws {
		if math.IsNaN(w.centre) || math.IsInf(w.centre, 0) || !(w.width > 0) || math.IsInf(w.width, 0) {
			continue
		}
		wide = math.Max(wide, w.width)
		for k := -piecesPerWindow / 2; k <= piecesPerWindow/2; k++ {
			cuts = append(cuts, w.centre+2*float64(k)*w.width)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	out := cuts[:0:0]
	for i, c := range cuts {
		if i > 0 {
			gap := c - cuts[i-1]
			n := min(maxGapPieces, int(math.Ceil(gap/(2*wide))))
			for k := 1; k < n; k++ {
				out = append(out, cuts[i-1]+gap*float64(k)/float64(n))
			}
		}
		out = append(out, c)
	}
	return out
}

// maxGapPieces bounds the pieces of one gap between windows.
const maxGapPieces = 64

var legX, legW = legendreRule(legendreN)

// legendreRule returns the n-point Gauss–Legendre nodes and weights on
// [−1, 1].
func legendreRule(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	quad.Legendre{}.FixedLocations(x, w, -1, 1)
	return x, w
}

func legendre() ([]float64, []float64) { return legX, legW }
