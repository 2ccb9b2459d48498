package learn

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// warmStart chooses the sites EP starts from at each evaluation after the
// first. GPML's infEP restarts from the last evaluation's sites (when
// they give a better evidence than flat sites); here the sites of the
// recent successful evaluations are extrapolated to the new point instead:
// with a the most recent evaluation and x_j, j ∈ J, earlier ones whose
// differences d_j = x_j − x_a are linearly independent (at most one per
// learned parameter),
//
//	s(x) ≈ s_a + Σ_j c_j (s_j − s_a),   c = argmin ‖Σ_j c_j d_j − (x − x_a)‖₂,
//
// the first-order model of the fixed point's sites s(x) through those
// evaluations (exact for sites affine in x; on a line search, whose points
// are collinear, the secant along the line). EP then runs to the same
// convergence test as from any other start: for log-concave likelihoods
// the fixed point is unique, so the start changes the number of sweeps,
// not the result beyond EP's tolerance. A predicted site whose precision
// changes sign keeps s_a's value, and when EP fails from the predicted
// sites it is retried from s_a (withRetries).
type warmStart struct {
	hist []warmPoint // successful evaluations, most recent last
	coef []float64   // c at the point being evaluated
	used []int       // the indices into hist of c's points
}

type warmPoint struct {
	x     []float64
	sites [][]families.Gaussian // per block
}

// add records a successful evaluation, keeping the 2·len(x)+2 most recent.
func (w *warmStart) add(x []float64, sites [][]families.Gaussian) {
	w.hist = append(w.hist, warmPoint{x: append([]float64(nil), x...), sites: sites})
	if k := 2*len(x) + 2; len(w.hist) > k {
		w.hist = append(w.hist[:0], w.hist[len(w.hist)-k:]...)
	}
}

// at computes the coefficients c for the evaluation at x.
func (w *warmStart) at(x []float64) {
	w.coef, w.used = w.coef[:0], w.used[:0]
	if len(w.hist) < 2 {
		return
	}
	a := w.hist[len(w.hist)-1].x
	var basis [][]float64 // orthonormal basis of the chosen d_j
	var cols [][]float64
	for j := len(w.hist) - 2; j >= 0 && len(cols) < len(x); j-- {
		d := make([]float64, len(x))
		floats.SubTo(d, w.hist[j].x, a)
		nd := floats.Norm(d, 2)
		if nd == 0 {
			continue
		}
		r := append([]float64(nil), d...)
		for _, q := range basis {
			floats.AddScaled(r, -floats.Dot(q, r), q)
		}
		if nr := floats.Norm(r, 2); nr > 1e-3*nd {
			floats.Scale(1/nr, r)
			basis, cols, w.used = append(basis, r), append(cols, d), append(w.used, j)
		}
	}
	if len(cols) == 0 {
		return
	}
	D := mat.NewDense(len(x), len(cols), nil)
	for k, d := range cols {
		D.SetCol(k, d)
	}
	rhs := make([]float64, len(x))
	floats.SubTo(rhs, x, a)
	var c mat.VecDense
	if err := c.SolveVec(D, mat.NewVecDense(len(x), rhs)); err != nil {
		w.used = w.used[:0]
		return
	}
	w.coef = append(w.coef, c.RawVector().Data...)
	for _, v := range w.coef {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			w.coef, w.used = w.coef[:0], w.used[:0]
			return
		}
	}
}

// last returns the most recent sites of block bi (nil when there are none
// with n sites).
func (w *warmStart) last(bi, n int) []families.Gaussian {
	if len(w.hist) == 0 {
		return nil
	}
	s := w.hist[len(w.hist)-1].sites
	if bi >= len(s) || len(s[bi]) != n {
		return nil
	}
	return s[bi]
}

// predict returns the extrapolated sites of block bi at the point of the
// last call to at, or nil when there is nothing to extrapolate from.
func (w *warmStart) predict(bi, n int) []families.Gaussian {
	sa := w.last(bi, n)
	if sa == nil || len(w.used) == 0 {
		return nil
	}
	out := append([]families.Gaussian(nil), sa...)
	for k, j := range w.used {
		sj := w.hist[j].sites
		if bi >= len(sj) || len(sj[bi]) != n {
			return nil
		}
		c := w.coef[k]
		for i := range out {
			out[i].Prec += c * (sj[bi][i].Prec - sa[i].Prec)
			out[i].Shift += c * (sj[bi][i].Shift - sa[i].Shift)
		}
	}
	for i := range out {
		if (out[i].Prec > 0) != (sa[i].Prec > 0) || math.IsNaN(out[i].Prec) || math.IsNaN(out[i].Shift) {
			out[i] = sa[i]
		}
	}
	return out
}
