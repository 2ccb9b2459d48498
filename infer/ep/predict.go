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
//
// On the weight-space path the same quantities come from the N×N posterior:
// Aᵀ S B⁻¹ S A = Aᵀ(T⁻¹ + Kf)⁻¹A = G − G Σ_w G with G = Aᵀ T A (Woodbury),
// so Var[g] = k** − diag(K* (G − G Σ_w G) K*ᵀ).
func (r *Result) Predict(Kstar *mat.Dense, kss, mstar []float64) (mean, vr []float64, err error) {
	if r.bf == nil && r.ws == nil {
		return nil, nil, errNoPosterior
	}
	t, n := Kstar.Dims()
	if n != r.pr.K.SymmetricDim() || len(kss) != t || (mstar != nil && len(mstar) != t) {
		return nil, nil, fmt.Errorf("ep: Predict dimensions: Kstar %d×%d, kss %d, mstar %d, N = %d", t, n, len(kss), len(mstar), r.pr.K.SymmetricDim())
	}
	if r.ws != nil {
		mean, vr = r.predictW(Kstar, kss, mstar)
		return mean, vr, nil
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
//
// On the weight-space path it reads Σ_w and μ_w directly.
func (r *Result) PredictLinear(X *mat.Dense) (mean, vr []float64, err error) {
	if r.bf == nil && r.ws == nil {
		return nil, nil, errNoPosterior
	}
	t, n := X.Dims()
	if n != r.pr.K.SymmetricDim() {
		return nil, nil, fmt.Errorf("ep: PredictLinear: X has %d columns, want %d", n, r.pr.K.SymmetricDim())
	}
	if r.ws != nil {
		var XS mat.Dense
		XS.Mul(X, r.ws.sigma)
		mean, vr = make([]float64, t), make([]float64, t)
		for i := range mean {
			x := X.RawRowView(i)
			mean[i] = dot(x, r.ws.mu)
			vr[i] = dot(x, XS.RawRowView(i))
		}
		return mean, vr, nil
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

// predictW is Predict on the weight-space path:
//
//	E[g] = m* + K* Aᵀ α,   Var[g] = k** − diag(K* W K*ᵀ),   W = G − G Σ_w G.
func (r *Result) predictW(Kstar *mat.Dense, kss, mstar []float64) (mean, vr []float64) {
	t, n := Kstar.Dims()
	ata := mat.NewVecDense(n, nil)
	ata.MulVec(r.pr.A.T(), mat.NewVecDense(len(r.alpha), r.alpha))
	var GS, GSG mat.Dense
	GS.Mul(r.ws.G, r.ws.sigma)
	GSG.Mul(&GS, r.ws.G)
	W := mat.NewDense(n, n, nil)
	W.Sub(r.ws.G, &GSG)
	var KW mat.Dense
	KW.Mul(Kstar, W)
	mean, vr = make([]float64, t), make([]float64, t)
	for j := range mean {
		k := Kstar.RawRowView(j)
		mean[j] = dot(k, ata.RawVector().Data)
		if mstar != nil {
			mean[j] += mstar[j]
		}
		vr[j] = kss[j] - dot(k, KW.RawRowView(j))
	}
	return mean, vr
}
