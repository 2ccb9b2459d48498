package ep

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Predict returns the posterior mean and variance of T new latent values g
// that are jointly Gaussian with w a priori: cov(g, w) = Kstar (T×N),
// var(g_t) = kss[t], E g = mstar (nil: zero). For a GP, Kstar is the cross
// covariance k(X*, X) and
//
//	E[g] = m* + K* Aᵀ α,   Var[g] = k** − diag(K* Aᵀ S B⁻¹ S A K*ᵀ)
//
// (GPML's fmu = Ks'·alpha and fs2 = kss − ‖L⁻¹ W½ Ks‖², Rasmussen & Williams
// Algorithm 3.6), with α = ν̃ − T μ_f.
func (r *Result) Predict(Kstar *mat.Dense, kss, mstar []float64) (mean, vr []float64, err error) {
	if r.bf == nil {
		return nil, nil, errNoPosterior
	}
	t, n := Kstar.Dims()
	if n != r.pr.K.SymmetricDim() || len(kss) != t || (mstar != nil && len(mstar) != t) {
		return nil, nil, fmt.Errorf("ep: Predict dimensions: Kstar %d×%d, kss %d, mstar %d, N = %d", t, n, len(kss), len(mstar), r.pr.K.SymmetricDim())
	}
	var C mat.Matrix = Kstar.T() // M×T (A = I)
	if !r.pr.identity {
		AC := mat.NewDense(len(r.alpha), t, nil)
		AC.Mul(r.pr.A, Kstar.T())
		C = AC
	}
	mv := mat.NewVecDense(t, nil)
	mv.MulVec(C.T(), mat.NewVecDense(len(r.alpha), r.alpha))
	P, Q := r.bf.quadForm(C)
	red := colDot(P, Q)
	mean, vr = make([]float64, t), make([]float64, t)
	for j := range mean {
		mean[j] = mv.AtVec(j)
		if mstar != nil {
			mean[j] += mstar[j]
		}
		vr[j] = kss[j] - red[j]
	}
	return mean, vr, nil
}

// PredictLinear returns the posterior mean and variance of xᵀw for each row
// x of X: xᵀμ_w and xᵀΣ_w x, computed as Predict with K* = X K.
func (r *Result) PredictLinear(X *mat.Dense) (mean, vr []float64, err error) {
	if r.bf == nil {
		return nil, nil, errNoPosterior
	}
	t, n := X.Dims()
	if n != r.pr.K.SymmetricDim() {
		return nil, nil, fmt.Errorf("ep: PredictLinear: X has %d columns, want %d", n, r.pr.K.SymmetricDim())
	}
	XK := mat.NewDense(t, n, nil)
	XK.Mul(X, r.pr.K)
	kss := make([]float64, t)
	ms := make([]float64, t)
	for i := 0; i < t; i++ {
		kss[i] = mat.Dot(XK.RowView(i), X.RowView(i))
		ms[i] = mat.Dot(X.RowView(i), mat.NewVecDense(n, r.pr.m0))
	}
	return r.Predict(XK, kss, ms)
}

// Prob returns p(y = +1) under lik for each predictive latent N(mean, var):
// probit Φ(m/√(1+v)), step eps + (1−2eps)Φ(m/√v). It fails for likelihoods
// that are not binary classifiers.
func Prob(lik Likelihood, mean, vr []float64) ([]float64, error) {
	out := make([]float64, len(mean))
	for i := range mean {
		p, ok := lik.Prob(mean[i], vr[i])
		if !ok {
			return nil, fmt.Errorf("ep: likelihood %s has no class probability", lik.Name())
		}
		out[i] = p
	}
	return out, nil
}
