package tep

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/infer"
)

// escortTilted2 returns the mean and covariance of the escort-tilted density
// ∝ St(w; ν+2, μ, νΣ/(ν+2)) · l(aᵀw)^t on ℝ² by tensor quadrature in the
// rotated coordinates w = μ + s e + r e⊥ (e = a/|a|), cut where the
// likelihood is not smooth. It uses only the densities (reference).
func escortTilted2(st tfam.StudentT, s Site, a []float64, t float64) ([]float64, *mat.SymDense) {
	es := st.Escort()
	an := math.Hypot(a[0], a[1])
	e := []float64{a[0] / an, a[1] / an}
	ep := []float64{-e[1], e[0]}
	c := es.Mu
	ac := a[0]*c[0] + a[1]*c[1]
	var cuts []float64
	for _, x := range likCuts(s, an) {
		cuts = append(cuts, (x-ac)/an)
	}
	hs := math.Sqrt(mat.Inner(mat.NewVecDense(2, e), es.Sigma, mat.NewVecDense(2, e)))
	hr := math.Sqrt(mat.Inner(mat.NewVecDense(2, ep), es.Sigma, mat.NewVecDense(2, ep)))
	ss, ws := nodes(0, hs, cuts, 200)
	rs, wr := nodes(0, hr, nil, 200)
	lp := likPow(s, t)
	var z float64
	m := make([]float64, 2)
	var c2 [2][2]float64
	w := make([]float64, 2)
	for i, sv := range ss {
		l := lp(ac + an*sv)
		for j, rv := range rs {
			w[0] = c[0] + sv*e[0] + rv*ep[0]
			w[1] = c[1] + sv*e[1] + rv*ep[1]
			f := ws[i] * wr[j] * l * es.Prob(w)
			z += f
			d := []float64{w[0] - c[0], w[1] - c[1]}
			for p := 0; p < 2; p++ {
				m[p] += f * d[p]
				for q := 0; q < 2; q++ {
					c2[p][q] += f * d[p] * d[q]
				}
			}
		}
	}
	cov := mat.NewSymDense(2, nil)
	for p := 0; p < 2; p++ {
		for q := p; q < 2; q++ {
			cov.SetSym(p, q, c2[p][q]/z-m[p]*m[q]/(z*z))
		}
	}
	return []float64{c[0] + m[0]/z, c[1] + m[1]/z}, cov
}

// TestUpdate2DQuadrature: one t-ADF step from a 2-D Student-t (cavity = the
// prior, then cavity = the previous ADF posterior) must give St(ν, μ, Σ)
// whose escort mean and covariance (μ, Σ) equal those of the escort-tilted
// density by brute-force quadrature, to 1e-8.
func TestUpdate2DQuadrature(t *testing.T) {
	nu := 4.0
	scale := mat.NewSymDense(2, []float64{1.3, 0.4, 0.4, 0.7})
	mu0 := []float64{0.3, -0.2}
	a1, a2 := []float64{1, 0.5}, []float64{-0.4, 1.2}
	for _, s := range []Site{{Lik: factor.Step{}, Y: 1}, {Lik: factor.Step{Eps: 0.1}, Y: -1}, {Lik: factor.Probit{}, Y: 1}} {
		s1, s2 := s, s
		s1.Proj, s2.Proj = a1, a2
		s2.Y = -s.Y
		p := &Problem{Nu: nu, Mean: mu0, Scale: scale, Sites: []Site{s1}}
		r1, err := Run(context.Background(), p, infer.Settings{}, &Options{ADF: true})
		if err != nil {
			t.Fatal(err)
		}
		prior, _ := tfam.NewStudentT(nu, mu0, scale)
		tq := tfam.TOf(nu, 2)
		wantMu, wantCov := escortTilted2(prior, s1, a1, tq)
		name := fmt.Sprintf("%s %v site 1", s.Lik.Name(), s.Lik.Params())
		compareSt(t, name, r1, wantMu, wantCov)

		p.Sites = []Site{s1, s2}
		r2, _ := Run(context.Background(), p, infer.Settings{}, &Options{ADF: true})
		q1, _ := tfam.NewStudentT(nu, r1.Mean, r1.Scale)
		wantMu, wantCov = escortTilted2(q1, s2, a2, tq)
		compareSt(t, fmt.Sprintf("%s %v site 2", s.Lik.Name(), s.Lik.Params()), r2, wantMu, wantCov)
	}
}

func compareSt(t *testing.T, name string, r *Result, mu []float64, cov *mat.SymDense) {
	t.Helper()
	for i := range mu {
		check(t, name+" mean", r.Mean[i], mu[i], 1e-8)
		for j := range mu {
			check(t, name+" scale", r.Scale.At(i, j), cov.At(i, j), 1e-8)
		}
	}
}

// TestUpdate1DQuadrature is the same check in one dimension, where the
// escort-tilted moments are a single quadrature.
func TestUpdate1DQuadrature(t *testing.T) {
	for _, s := range []Site{{Lik: factor.Step{Eps: 0.05}, Y: -1}, {Lik: factor.Probit{}, Y: 1}} {
		nu, m0, v0, a := 3.0, 0.8, 2.0, 1.7
		s.Proj = []float64{a}
		p := &Problem{Nu: nu, Mean: []float64{m0}, Scale: mat.NewSymDense(1, []float64{v0}), Sites: []Site{s}}
		r, err := Run(context.Background(), p, infer.Settings{}, &Options{ADF: true})
		if err != nil {
			t.Fatal(err)
		}
		tq := tfam.TOf(nu, 1)
		lp := likPow(s, tq)
		f := func(w float64) float64 { return math.Exp(stLogPdf1(w, nu+2, m0, nu*v0/(nu+2))) * lp(a*w) }
		var cuts []float64
		for _, c := range likCuts(s, a) {
			cuts = append(cuts, c/a)
		}
		_, mean, vr := moments1(f, m0, math.Sqrt(v0), cuts, 400)
		check(t, s.Lik.Name()+" mean", r.Mean[0], mean, 1e-8)
		check(t, s.Lik.Name()+" scale", r.Scale.At(0, 0), vr, 1e-8)
	}
}
