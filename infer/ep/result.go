package ep

import (
	"errors"
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// finish refactors the final state once (so that means, variances,
// predictions and log Z come from the same factorisation) and fills res.
// A state already computed from scratch from the final sites (the last
// parallel sweep, or a refresh after the last change) is used as it is;
// after sequential sweeps on M ≥ delayMin sites, settle factors once and
// keeps the running variances (smaller blocks are refactored in full, at
// negligible cost).
func (e *engine) finish(res *Result, status infer.Status, msg string) *Result {
	if status == infer.Canceled {
		return e.finishCanceled(res, msg)
	}
	res.Status, res.Message = status, msg
	res.Sites = append([]families.Gaussian(nil), e.sites...)
	res.B = append([]float64(nil), e.b...)
	st, err := e.st, error(nil)
	switch {
	case e.fresh:
	case e.st != nil && e.st.tracking && e.st.sigma != nil && !anyTight(e.pr, e.sites):
		st, err = e.st.running().checked()
	case e.st != nil && e.st.sigma != nil && (len(e.sites) >= delayMin || e.s.KeepCov):
		e.release()
		st, err = settle(e.pr, e.sites, e.st.sigma, scratch{done: e.done, b: e.spare})
	default:
		st, err = e.recompute(e.sites, false)
	}
	if errors.Is(err, errCanceled) {
		return e.finishCanceled(res, "canceled during the final factorisation")
	}
	var alpha []float64
	if err == nil {
		alpha, err = e.alpha(st)
	}
	if err != nil {
		if status == infer.Converged {
			res.Status = infer.Failed
		}
		res.Message = joinMsg(msg, "final sites give an improper posterior")
		if e.st != nil && finite(e.st.mu...) {
			res.FMean = append([]float64(nil), e.st.mu...)
		}
		res.Stats = e.stats
		return res
	}
	res.pr, res.bf, res.ws = e.pr, st.bf, st.w
	if e.s.KeepCov {
		res.sigma = e.st.sigma
	}
	res.FMean, res.FVar, res.alpha = st.mu, st.sdiag, alpha
	res.Mean, res.Var = e.weightMarginals(res)
	if status == infer.Converged && !e.r.relaxed {
		lz, err := e.logZ(st, alpha)
		res.LogZ, res.HasLogZ = lz, err == nil
		if err != nil {
			res.Message = joinMsg(res.Message, err.Error())
		}
	}
	res.Stats = e.stats
	return res
}

// alpha returns α = ν̃ − T μ_f = Kf⁻¹(μ_f − f0) for the final state: on the
// site-space path from B's factorisation (posteriorAlpha), or for the
// running state of an Incremental run (no tight site: |τ̃_i| Kf_ii ≤
// tightRatio, so the difference loses at most that factor on ε|μ_i|) as
// ν̃ − T μ_f; on the weight-space path, where μ_w is read directly and α
// only enters Predict and log Z, as ν̃ − T A μ_w (for tight sites, from
// tightenW).
func (e *engine) alpha(st *state) ([]float64, error) {
	if st.w == nil && st.bf != nil {
		return posteriorAlpha(e.pr, st.bf, e.sites)
	}
	alpha := make([]float64, len(e.sites))
	for i, sp := range e.sites {
		alpha[i] = sp.Shift - sp.Prec*st.mu[i]
		if st.alpha != nil && !math.IsNaN(st.alpha[i]) {
			alpha[i] = st.alpha[i] // a tight site's, without cancelling
		}
	}
	return alpha, nil
}

func joinMsg(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// weightMarginals maps the projection posterior back to w:
//
//	μ_w = m0 + K Aᵀ α,   diag Σ_w = diag K − diag(K Aᵀ S B⁻¹ S A K),
//
// with α = ν̃ − T μ_f = Kf⁻¹(μ_f − f0) (computed without Kf⁻¹, posteriorAlpha),
// and the variances of tight sites' members in the leave-one-out form of
// tightWeightVars.
func (e *engine) weightMarginals(res *Result) (mean, vr []float64) {
	pr := e.pr
	if pr.identity {
		return append([]float64(nil), res.FMean...), append([]float64(nil), res.FVar...)
	}
	if res.ws != nil {
		vr = make([]float64, len(res.ws.mu))
		for i := range vr {
			vr[i] = res.ws.sigma.At(i, i)
		}
		return append([]float64(nil), res.ws.mu...), vr
	}
	n := len(pr.m0)
	mv := mat.NewVecDense(n, nil)
	mv.MulVec(pr.KAt, mat.NewVecDense(len(res.alpha), res.alpha))
	mean = make([]float64, n)
	for i := range mean {
		mean[i] = pr.m0[i] + mv.AtVec(i)
	}
	P, Q := res.bf.quadForm(pr.KAt.T())
	red := colDot(P, Q)
	vr = make([]float64, n)
	for i := range vr {
		vr[i] = pr.K.At(i, i) - red[i]
	}
	if note := e.tightWeightVars(res.Sites, vr); note != "" {
		res.Message = joinMsg(res.Message, note)
	}
	return mean, vr
}

// logZ returns log Z_EP at the converged sites (rodrigues eqs 23–28 with a
// prior mean; GPML infEP's −nlZ), generalised to power u (power EP's
// evidence, Minka 2004 "Power EP" §4: each site normaliser C̃_i is chosen so
// that ∫ (C̃_i t̃_i)^u q\i = ∫ t_i^u q\i):
//
//	log Z = Σ_i (1/u)[log Ẑ_i + ½ log(1 + u τ̃_i v_i) − ½ (μ_i²/σ_i² − m_i²/v_i)]
//	      − ½ log det(I + T Kf) + E(μ),
//	E(μ) = −½ (μ − f0)ᵀ(ν̃ − T μ) − ½ μᵀ T μ + ν̃ᵀ μ,
//
// where (m_i, v_i) is the (power) cavity of site i, (μ_i, σ_i²) its posterior
// marginal and Ẑ_i = ∫ p(y_i|f)^u N(f; m_i, v_i) df. The first sum is
// Σ log C̃_i (rodrigues eq. 22 for u = 1); the rest is
// log ∫ N(f; f0, Kf) Π exp(−½τ̃ f² + ν̃ f) df evaluated at the posterior mode μ.
// For u = 1 this is exactly EP's log Z_EP.
//
// Its O(τ̃) terms cancel: with α = ν̃ − T μ = Kf⁻¹(μ − f0), the cavity
// identities m_i/v_i = μ_i/σ_i² − u ν̃_i and 1/v_i = 1/σ_i² − u τ̃_i reduce
// site i's share of the bracket and of E(μ) to ½ α_i (f0_i − m_i), so that
//
//	log Z = Σ_i [(1/u)(log Ẑ_i + ½ log(1 + u τ̃_i v_i)) + ½ α_i (f0_i − m_i)]
//	      − ½ log det(I + T Kf),
//
// whose every term is of the size of the answer (the written-out sum adds
// terms of size τ̃ μ_i²: with a Gaussian site of noise variance 1e-9 it
// lost log Z's every digit). For Gaussian sites it is −½ yᵀ(K + R)⁻¹y −
// ½ log det(K + R) − (M/2) log 2π term by term (m_i is the leave-one-out
// mean, y_i − m_i = α_i (v_i + r_i)).
func (e *engine) logZ(st *state, alpha []float64) (float64, error) {
	return logZEP(e.r.Power, e.p.Sites, e.sites, e.pr.f0, st.mu, st.sdiag, alpha, st.cavityAt, st.logDet())
}

// logZEP is the formula above for the marginals (mu, s2) of the site
// projections, their prior means f0 (nil: zero), α (nil: ν̃ − T μ), the
// cavities cav (the marginal's cavity for site i, see state.cavityAt; nil:
// τc = 1/σ² − u τ̃ from the marginal) and logDet = log det(I + T Kf); it is
// shared by the dense and the FITC (fitc.go) engines. It fails, naming the
// site, when a cavity is not proper or the result is not finite.
func logZEP(u float64, ps []Site, sites []families.Gaussian, f0, mus, s2s, alpha []float64,
	cav func(i int, u float64, sp families.Gaussian, mu, v float64) (float64, float64), logDet float64) (float64, error) {
	if cav == nil {
		cav = (*state)(nil).cavityAt
	}
	var lz float64
	for i, sp := range sites {
		mu := mus[i]
		tc, nc := cav(i, u, sp, mu, s2s[i])
		if !(tc > 0) || !finite(nc) {
			return 0, fmt.Errorf("log Z undefined: the cavity of site %d is not a proper Gaussian (precision %.3g)", i, tc)
		}
		m, v := nc/tc, 1/tc
		s := ps[i]
		lzi, _, _ := s.Lik.Tilted(s.Y, m, v, u)
		var m0 float64
		if f0 != nil {
			m0 = f0[i]
		}
		a := sp.Shift - sp.Prec*mu
		if alpha != nil {
			a = alpha[i]
		}
		lz += (lzi+0.5*math.Log1p(u*sp.Prec*v))/u + 0.5*a*(m0-m)
	}
	lz -= 0.5 * logDet
	if !finite(lz) {
		return 0, errors.New("log Z undefined: not finite")
	}
	return lz, nil
}

var errNoPosterior = errors.New("ep: result has no proper posterior to predict from")

// Cov returns the full posterior covariance of w,
// Σ_w = K − K Aᵀ S B⁻¹ S A K (on the weight-space path, a copy of Σ_w).
func (r *Result) Cov() (*mat.SymDense, error) {
	if r.ws != nil {
		return mat.NewSymDense(r.ws.sigma.SymmetricDim(), append([]float64(nil), r.ws.sigma.RawSymmetric().Data...)), nil
	}
	if r.bf == nil {
		return nil, errNoPosterior
	}
	pr := r.pr
	var C mat.Matrix = pr.Kf
	if !pr.identity {
		C = pr.KAt.T()
	}
	P, Q := r.bf.quadForm(C)
	var R mat.Dense
	R.Mul(P.T(), Q)
	n := pr.K.SymmetricDim()
	S := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			S.SetSym(i, j, pr.K.At(i, j)-0.5*(R.At(i, j)+R.At(j, i)))
		}
	}
	return S, nil
}
