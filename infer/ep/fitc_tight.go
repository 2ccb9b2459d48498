package ep

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// Tight sites under FITC. A latent whose summed site precision dwarfs its
// prior variance (τ_i Kt_ii > tightRatio: Gaussian observations with noise
// r ≪ Kt_ii) has the marginal σ_i² ≈ 1/τ_i, and its cavity read from the
// marginal, τc = 1/σ_i² − τ_i, cancels as on the dense paths (tight.go).
// With f_i = v_iᵀu + ε_i, ε_i ~ N(0, g_i), the posterior of u under every
// other latent's sites has the precision A\i = A − w_i v_i v_iᵀ, and the
// leave-latent-out distribution of f_i is
//
//	s_i = g_i + q_i/(1 − w_i q_i),   m_i = (v_iᵀa − c_i ν_i q_i)/(1 − w_i q_i),
//
// with q_i = v_iᵀ A⁻¹ v_i (Sherman–Morrison; a = A⁻¹ h). s_i is a sum of
// positive terms and m_i's numerator loses at most w_i q_i ≤ ½ of its
// digits' scale, so these forms are stable while latent i does not
// dominate its direction of u — while its leverage w_i q_i ≤ ½ (a latent
// near an inducing input, g_i ≈ jitter, can exceed it; Σ_i w_i q_i =
// tr(I − A⁻¹) ≤ m, so at most 2m latents do). For those latents, the set
// T, the leave-one-out form of tight.go runs on a |T|-dimensional problem:
// under the sites of the other latents (represent with T's sites flat,
// A_L and a_L), f_T has the Gaussian "prior" with mean V_Tᵀ a_L and
// covariance V_Tᵀ A_L⁻¹ V_T + diag(g_T), which T's summed sites turn into
// the same posterior marginals; recompute on it gives their cavities and
// α_i = ν_i − τ_i μ_i from B's inverse diagonal. The cavity of one site j
// on latent i is latent i's cavity times the other sites on i
// (fitcEngine.cavity). Runs without tight latents keep their arithmetic
// (GPML's FITC reproductions).

// tighten computes st.cav and st.alpha for the tight latents of a state
// just built from the summed sites (tau, nu).
func (pr *fitcPrior) tighten(ctx context.Context, st *fitcState, tau, nu []float64) error {
	st.cav, st.alpha = nil, nil
	var tightIdx []int
	for i := range tau {
		if tau[i] > 0 && tau[i]*pr.kt[i] > tightRatio {
			tightIdx = append(tightIdx, i)
		}
	}
	if len(tightIdx) == 0 {
		return nil
	}
	st.cav, st.alpha = make([]families.Gaussian, pr.n), make([]float64, pr.n)
	for i := range st.alpha {
		st.alpha[i] = math.NaN()
	}
	u := upper(&st.A)
	z := make([]float64, pr.m)
	var T []int
	for _, i := range tightIdx {
		c, _, w, ok := coef(pr.g[i], tau[i])
		if !ok {
			continue
		}
		v := pr.Vt.RawRowView(i)
		copy(z, v)
		blas64.Trsv(blas.Trans, u, vec(z))
		q := blas64.Dot(vec(z), vec(z))
		if w*q > leverageMin {
			T = append(T, i)
			continue
		}
		va := blas64.Dot(vec(v), vec(st.a))
		den := 1 - w*q
		s := pr.g[i] + q/den
		m := (va - c*nu[i]*q) / den
		st.cav[i] = families.Gaussian{Prec: 1 / s, Shift: m / s}
		st.alpha[i] = c*nu[i] - w*va
	}
	if len(T) == 0 {
		return nil
	}
	return pr.tightenDominant(ctx, st, T, tau, nu)
}

// tightenDominant is tighten for the latents T that dominate their
// direction of u (see above).
func (pr *fitcPrior) tightenDominant(ctx context.Context, st *fitcState, T []int, tau, nu []float64) error {
	lt, ln := append([]float64(nil), tau...), append([]float64(nil), nu...)
	for _, i := range T {
		lt[i], ln[i] = 0, 0
	}
	loose, err := pr.represent(ctx, lt, ln)
	if err != nil {
		return err
	}
	t := len(T)
	Zt := mat.NewDense(pr.m, t, nil) // U_L⁻ᵀ V_T
	sub := &projection{identity: true, allTight: true, Kf: mat.NewSymDense(t, nil), f0: make([]float64, t)}
	subSites := make([]families.Gaussian, t)
	for a, i := range T {
		v := pr.Vt.RawRowView(i)
		Zt.SetCol(a, v)
		sub.f0[a] = blas64.Dot(vec(v), vec(loose.a))
		subSites[a] = families.Gaussian{Prec: tau[i], Shift: nu[i]}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, upper(&loose.A), Zt.RawMatrix())
	for a := range t {
		for b := a; b < t; b++ {
			x := mat.Dot(Zt.ColView(a), Zt.ColView(b))
			if a == b {
				x += pr.g[T[a]]
			}
			sub.Kf.SetSym(a, b, x)
		}
	}
	sst, alpha, err := leaveOneOut(sub, subSites)
	if err != nil {
		return err
	}
	for a, i := range T {
		tc, nc := sst.cavityAt(a, 1, subSites[a], sst.mu[a], sst.sdiag[a])
		st.cav[i], st.alpha[i] = families.Gaussian{Prec: tc, Shift: nc}, alpha[a]
		st.mu[i], st.sdiag[i] = sst.mu[a], sst.sdiag[a]
	}
	return nil
}

// cavity returns the natural parameters of the power-u cavity of site j
// with posterior marginal N(mu, v) of its latent: for a tight latent, the
// latent's cavity (tighten) times its other sites and (1 − u) of site j's
// own (summed here, not read from the running totals, which carry the
// rounding of the sweep's increments); else τc = 1/v − u τ̃_j,
// νc = mu/v − u ν̃_j.
func (e *fitcEngine) cavity(j int, u, mu, v float64) (tc, nc float64) {
	i, sp := e.p.Sites[j].Index, e.sites[j]
	if e.st.cav == nil || !(e.st.cav[i].Prec > 0) {
		return 1/v - u*sp.Prec, mu/v - u*sp.Shift
	}
	tc, nc = powerCavity(e.st.cav[i], u, sp)
	for _, k := range e.onLatent(i) {
		if k != j {
			tc, nc = tc+e.sites[k].Prec, nc+e.sites[k].Shift
		}
	}
	return tc, nc
}

// onLatent returns the sites on latent i.
func (e *fitcEngine) onLatent(i int) []int {
	if e.byLatent == nil {
		e.byLatent = make([][]int, e.pr.n)
		for j, s := range e.p.Sites {
			e.byLatent[s.Index] = append(e.byLatent[s.Index], j)
		}
	}
	return e.byLatent[i]
}

// siteAlpha returns α_j = ν̃_j − τ̃_j μ_i of every site for log Z_EP, or nil
// when no latent is tight (logZEP then forms it): on a tight latent from
// its stable α_i (memberAlpha).
func (e *fitcEngine) siteAlpha(st *fitcState) []float64 {
	if st.alpha == nil {
		return nil
	}
	out := make([]float64, len(e.sites))
	for j, s := range e.p.Sites {
		i := s.Index
		if a := st.alpha[i]; !math.IsNaN(a) {
			out[j] = memberAlpha(e.sites[j], families.Gaussian{Prec: e.tau[i], Shift: e.nu[i]}, a)
			continue
		}
		out[j] = e.sites[j].Shift - e.sites[j].Prec*st.mu[i]
	}
	return out
}
