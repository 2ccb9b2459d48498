package tep

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
)

// Prediction is the predictive distribution of a latent value s* and the
// probability of the label y* = +1 under a likelihood.
type Prediction struct {
	Mean  float64 // predictive latent mean
	Var   float64 // predictive latent variance (+Inf for ν ≤ 2)
	Scale float64 // scale² of the Student-t St(ν, Mean, Scale) used for Prob
	Prob  float64 // p(y* = +1) = ∫ St(s; ν, Mean, Scale) l(+1 | s) ds
}

// PredictProj predicts s* = aᵀw for a new projection a (Bayes point machine):
// under q = St(ν, μ, Σ) the projection is exactly St(ν, aᵀμ, aᵀΣa), and
// p(y* = +1) = ∫ St(s) l(+1 | s) ds by lik's t-EP rule (closed form for
// step, quadrature for probit); lik nil: no Prob.
func (r *Result) PredictProj(a []float64, lik factor.Escort) (Prediction, error) {
	if r.muU == nil {
		return Prediction{}, errors.New("tep: no posterior to predict from")
	}
	if len(a) != r.st.k {
		return Prediction{}, errors.New("tep: projection has the wrong length")
	}
	g := r.st.whiten(a)
	var x mat.VecDense
	if err := r.postCh.SolveVecTo(&x, mat.NewVecDense(len(g), append([]float64(nil), g...))); err != nil {
		return Prediction{}, err
	}
	scale := r.rho() * dot(g, x.RawVector().Data)
	return r.predictive(dot(a, r.Mean), scale, lik), nil
}

func (r *Result) rho() float64 {
	return (r.Nu + float64(r.st.k)) * math.Exp(r.logPsi) / r.Nu
}

func (r *Result) predictive(m, scale float64, lik factor.Escort) Prediction {
	pr := Prediction{Mean: m, Scale: scale, Var: math.Inf(1)}
	if r.Nu > 2 {
		pr.Var = r.Nu / (r.Nu - 2) * scale
	}
	if lik != nil {
		pr.Prob = tiltMoments(Site{Lik: lik, Y: 1}, 1, r.Nu, m, scale).Z
	}
	return pr
}

// PredictTP predicts the latent f* at a new input of a Student-t process
// f ~ TP(ν, m, K) whose training values f are the k coordinates of w
// (Scale = K). kStar is the cross-covariance k(X, x*), kss = k(x*, x*) and
// meanStar the prior mean at x*. Under the TP prior
//
//	f* | f ~ St(ν+k, m* + qᵀL0⁻¹(f − μ0), (ν + β)/(ν+k) · (k** − qᵀq)),
//	q = L0⁻¹k*,  β = (f−μ0)ᵀK⁻¹(f−μ0),
//
// and averaging over q(f) = St(ν, μ, Σ) (u = L0⁻¹f, Cov_u = ν/(ν−2)Σ_u) gives
//
//	E f*   = m* + qᵀ(μ_u − u0)
//	Var f* = (ν + ‖μ_u − u0‖² + tr Cov_u)/(ν+k−2) · (k** − qᵀq) + qᵀ Cov_u q.
//
// The predictive of f* is not exactly Student-t; Prob uses St(ν, E f*, s²)
// with ν/(ν−2)s² = Var f* (same mean and variance, the posterior's ν).
// Requires ν > 2; lik nil: no Prob.
func (r *Result) PredictTP(kStar []float64, kss, meanStar float64, lik factor.Escort) (Prediction, error) {
	st := r.st
	if r.muU == nil || r.Nu <= 2 || len(kStar) != st.k {
		return Prediction{}, errors.New("tep: PredictTP needs a posterior, nu > 2 and len(kStar) = k")
	}
	q := mat.NewVecDense(st.k, nil)
	if err := q.SolveVec(&st.l0, mat.NewVecDense(st.k, append([]float64(nil), kStar...))); err != nil {
		return Prediction{}, err
	}
	qd := q.RawVector().Data
	var x mat.VecDense
	if err := r.postCh.SolveVecTo(&x, q); err != nil {
		return Prediction{}, err
	}
	cov := r.Nu / (r.Nu - 2) * r.rho()
	d := make([]float64, st.k)
	for i := range d {
		d[i] = r.muU[i] - st.m0[i]
	}
	tr, err := r.traceCovU()
	if err != nil {
		return Prediction{}, err
	}
	mean := meanStar + dot(qd, d)
	resid := math.Max(kss-dot(qd, qd), 0)
	v := (r.Nu+dot(d, d)+tr)/(r.Nu+float64(st.k)-2)*resid + cov*dot(qd, x.RawVector().Data)
	return r.predictive(mean, (r.Nu-2)/r.Nu*v, lik), nil
}

// traceCovU returns tr Cov_u = ν/(ν−2) ρ tr P⁻¹, with tr P⁻¹ = ‖U⁻¹‖_F²
// from the Cholesky factor P = UᵀU (triangular solves, computed once).
func (r *Result) traceCovU() (float64, error) {
	if r.trCov != 0 {
		return r.trCov, nil
	}
	var u mat.TriDense
	r.postCh.UTo(&u)
	k := r.st.k
	eye := mat.NewDiagDense(k, nil)
	for i := 0; i < k; i++ {
		eye.SetDiag(i, 1)
	}
	var inv mat.Dense
	if err := inv.Solve(&u, eye); err != nil {
		return 0, err
	}
	fro := mat.Norm(&inv, 2)
	r.trCov = r.Nu / (r.Nu - 2) * r.rho() * fro * fro
	return r.trCov, nil
}
