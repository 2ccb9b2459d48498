package ep

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// The five-point toy of qi-guo §6.1 (Figure 1): linear classification
// through the origin, prior w ~ N(0, I) (linear kernel k = xᵀx'), step
// likelihood with ε = 0.2. The paper gives the points only in a figure, so
// these coordinates are ours with the same structure: two "x" points (y = −1)
// on the left, two "o" points (y = +1) on the right, and one "x" on the far
// right — the mislabeled point (index 4).
var toyX = [][]float64{{-1.0, 0.6}, {-1.4, -0.4}, {1.1, 0.9}, {1.3, -0.6}, {2.6, 0.3}}
var toyY = []float64{-1, -1, 1, 1, -1}

const toyEps = 0.2

// exactToy returns the exact posterior mean and covariance of w. The
// likelihood depends only on the direction u(θ) = (cos θ, sin θ) of w and is
// constant between the angles where some x_iᵀu = 0, so in polar coordinates
// the integrals are exact: the radial parts of N(0, I) give
// ∫ r e^{−r²/2} dr = 1, ∫ r² e^{−r²/2} dr = √(π/2), ∫ r³ e^{−r²/2} dr = 2, and
// the angular parts are integrals of 1, cos, sin, cos², sin², sin·cos over arcs.
func exactToy() (mean []float64, cov *mat.SymDense) {
	var cuts []float64
	for _, x := range toyX {
		a := math.Atan2(x[1], x[0])
		for _, c := range []float64{a + math.Pi/2, a - math.Pi/2} {
			cuts = append(cuts, math.Mod(c+4*math.Pi, 2*math.Pi))
		}
	}
	sort.Float64s(cuts)
	cuts = append(cuts, cuts[0]+2*math.Pi)
	var z, m1, m2, s11, s22, s12 float64
	for k := 0; k+1 < len(cuts); k++ {
		a, b := cuts[k], cuts[k+1]
		mid := 0.5 * (a + b)
		L := 1.0
		for i, x := range toyX {
			if toyY[i]*(x[0]*math.Cos(mid)+x[1]*math.Sin(mid)) >= 0 {
				L *= 1 - toyEps
			} else {
				L *= toyEps
			}
		}
		z += L * (b - a)
		m1 += L * (math.Sin(b) - math.Sin(a))
		m2 += L * (math.Cos(a) - math.Cos(b))
		s11 += L * ((b-a)/2 + (math.Sin(2*b)-math.Sin(2*a))/4)
		s22 += L * ((b-a)/2 - (math.Sin(2*b)-math.Sin(2*a))/4)
		s12 += L * (math.Sin(b)*math.Sin(b) - math.Sin(a)*math.Sin(a)) / 2
	}
	r2 := math.Sqrt(math.Pi / 2)
	mean = []float64{r2 * m1 / z, r2 * m2 / z}
	cov = mat.NewSymDense(2, []float64{
		2*s11/z - mean[0]*mean[0], 2*s12/z - mean[0]*mean[1],
		2*s12/z - mean[0]*mean[1], 2*s22/z - mean[1]*mean[1]})
	return mean, cov
}

func toyProblem() *Problem {
	p := &Problem{Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	for i, x := range toyX {
		p.Sites = append(p.Sites, Site{Lik: Step{Eps: toyEps}, Y: toyY[i], Proj: x})
	}
	return p
}

// TestToyExactByGrid cross-checks the polar closed form with a brute-force
// Cartesian grid sum (1e-3 agreement; the grid error is O(h) at the steps).
func TestToyExactByGrid(t *testing.T) {
	mean, cov := exactToy()
	const h, lim = 0.004, 7.0
	var z, e1, e2, e11, e22, e12 float64
	for w1 := -lim; w1 <= lim; w1 += h {
		for w2 := -lim; w2 <= lim; w2 += h {
			p := math.Exp(-0.5 * (w1*w1 + w2*w2))
			for i, x := range toyX {
				if toyY[i]*(x[0]*w1+x[1]*w2) >= 0 {
					p *= 1 - toyEps
				} else {
					p *= toyEps
				}
			}
			z += p
			e1 += p * w1
			e2 += p * w2
			e11 += p * w1 * w1
			e22 += p * w2 * w2
			e12 += p * w1 * w2
		}
	}
	e1, e2 = e1/z, e2/z
	grid := []float64{e1, e2, e11/z - e1*e1, e22/z - e2*e2, e12/z - e1*e2}
	exact := []float64{mean[0], mean[1], cov.At(0, 0), cov.At(1, 1), cov.At(0, 1)}
	for i := range grid {
		if !(math.Abs(grid[i]-exact[i]) <= 2e-3) {
			t.Errorf("moment %d: grid %.5f, polar %.5f", i, grid[i], exact[i])
		}
	}
}

// toyErrors returns the squared distances of a result's posterior mean and
// covariance from the exact ones.
func toyErrors(t *testing.T, res *Result, mean []float64, cov *mat.SymDense) (em, ec float64) {
	c, err := res.Cov()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		em += (res.Mean[i] - mean[i]) * (res.Mean[i] - mean[i])
		for j := 0; j < 2; j++ {
			ec += (c.At(i, j) - cov.At(i, j)) * (c.At(i, j) - cov.At(i, j))
		}
	}
	return em, ec
}

// TestToyRelaxedEP runs EP, power EP (u = 0.8) and relaxed EP (c = 20, and a
// sweep of c) on the five-point toy against the exact posterior.
//
// Asserted: every run converges, EP's and power EP's errors are those of
// genuinely different approximations, relaxation weights are finite and
// non-negative, and a huge c gives EP. Logged, not asserted: qi-guo's claim
// that REP (c = 20) is closer to the exact posterior than EP and power EP
// with only the mislabeled point relaxed. With the divergence as defined in
// eq. (5) (KL between the normalised relaxed tilted distribution and its
// projection; see relaxed.go) the KL gain from relaxing is below c·b for
// c = 20, so REP = EP here; the paper's own Appendix B expression could not
// be recovered from the text (its decoded form is not a divergence: it is
// negative for some cavities). This is reported as a non-reproduction.
func TestToyRelaxedEP(t *testing.T) {
	mean, cov := exactToy()
	t.Logf("exact                 mean %.4f %.4f  cov %.4f %.4f %.4f", mean[0], mean[1], cov.At(0, 0), cov.At(1, 1), cov.At(0, 1))
	errs := map[string][2]float64{}
	divs := []infer.Divergence{infer.KL{}, infer.Alpha{A: 0.8}, infer.RelaxedKL{C: 20}, infer.RelaxedKL{C: 1e12}}
	for _, c := range []float64{5, 1, 0.5, 0.2, 0.1} {
		divs = append(divs, infer.RelaxedKL{C: c})
	}
	var rep *Result
	for _, d := range divs {
		s := settings(infer.Sequential, d)
		s.Tol = 1e-9
		res, err := Run(context.Background(), toyProblem(), s)
		if err != nil {
			t.Fatal(err)
		}
		em, ec := toyErrors(t, res, mean, cov)
		errs[d.String()] = [2]float64{em, ec}
		t.Logf("%-22s %-9v mean %.4f %.4f  |Δmean|² %.3g  |Δcov|² %.3g  b %.3g", d, res.Status, res.Mean[0], res.Mean[1], em, ec, res.B)
		for i, b := range res.B {
			if !(b >= 0) || math.IsInf(b, 0) {
				t.Errorf("%v: b[%d] = %g", d, i, b)
			}
		}
		if d == (infer.RelaxedKL{C: 20}) {
			rep = res
			if res.Status != infer.Converged {
				t.Errorf("REP c = 20: %v", res.Status)
			}
		}
	}
	if e, h := errs["kl"], errs["relaxed_kl(c = 1e+12)"]; e != h {
		t.Errorf("c = 1e12 errors %v differ from EP %v", h, e)
	}
	if e, p := errs["kl"], errs["alpha(0.8)"]; e == p {
		t.Error("power EP identical to EP")
	}
	r, e, p := errs["relaxed_kl(c = 20)"], errs["kl"], errs["alpha(0.8)"]
	claim := r[0] < e[0] && r[0] < p[0] && r[1] < e[1] && r[1] < p[1]
	onlyOutlier := true
	for i, b := range rep.B {
		onlyOutlier = onlyOutlier && (i == 4) == (b > 0)
	}
	t.Logf("qi-guo §6.1 claim (REP c=20 closer than EP and PEP: %v; only the mislabeled point relaxed: %v)", claim, onlyOutlier)
}
