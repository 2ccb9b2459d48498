package run

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// ar1 is an AR(1) with drift, x_0 ~ N(m0, s0), x_t ~ N(a x_{t−1} + b, q),
// observed as y_t ~ N(x_t, r) at the steps in obs.
type ar1 struct {
	a, b, q, m0, s0, r float64
	T                  int
	obs                map[int]float64
}

// rts is the Kalman filter and Rauch–Tung–Striebel smoother of the chain,
// written independently of infer/fgraph: smoothed means and variances, and
// log p(y) by the prediction-error decomposition.
func (c ar1) rts() (mean, vr []float64, logZ float64) {
	mf, vf := make([]float64, c.T), make([]float64, c.T) // filtered
	mp, vp := make([]float64, c.T), make([]float64, c.T) // predicted
	for t := 0; t < c.T; t++ {
		if t == 0 {
			mp[t], vp[t] = c.m0, c.s0
		} else {
			mp[t], vp[t] = c.a*mf[t-1]+c.b, c.a*c.a*vf[t-1]+c.q
		}
		mf[t], vf[t] = mp[t], vp[t]
		if y, ok := c.obs[t]; ok {
			s := vp[t] + c.r
			logZ += -0.5*math.Log(2*math.Pi*s) - 0.5*(y-mp[t])*(y-mp[t])/s
			k := vp[t] / s
			mf[t], vf[t] = mp[t]+k*(y-mp[t]), (1-k)*vp[t]
		}
	}
	mean, vr = make([]float64, c.T), make([]float64, c.T)
	mean[c.T-1], vr[c.T-1] = mf[c.T-1], vf[c.T-1]
	for t := c.T - 2; t >= 0; t-- {
		g := vf[t] * c.a / vp[t+1]
		mean[t] = mf[t] + g*(mean[t+1]-mp[t+1])
		vr[t] = vf[t] + g*g*(vr[t+1]-vp[t+1])
	}
	return mean, vr, logZ
}

// model is the chain as the compile.FactorGraph fg13c's compiler builds
// for `x[0] ~ normal(m0, s0)`, `x[t] ~ normal(a*x[t-1] + b, q)` and
// `y[k] ~ normal(x[tobs[k]], r)`.
func (c ar1) model(specs ...*compile.InferSpec) *compile.Model {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Real, 0, []int{c.T}, posAt(1))
	fg := &compile.FactorGraph{NumVars: c.T, First: []int{0}}
	fg.Gaussians = append(fg.Gaussians, compile.LinearGaussian{
		Aff: compile.Affine{Vars: []int{0}, Coefs: []float64{1}, Const: -c.m0}, Var: c.s0, Target: 0})
	for t := 1; t < c.T; t++ {
		fg.Gaussians = append(fg.Gaussians, compile.LinearGaussian{
			Aff: compile.Affine{Vars: []int{t, t - 1}, Coefs: []float64{1, -c.a}, Const: -c.b}, Var: c.q, Target: t})
	}
	for t := 0; t < c.T; t++ {
		if y, ok := c.obs[t]; ok {
			fg.Sites = append(fg.Sites, affineSite(factor.Normal{Var: c.r}, y, compile.Affine{Vars: []int{t}, Coefs: []float64{1}}))
		}
	}
	return &compile.Model{Graph: g, FactorGraph: fg, Infers: specs}
}

func affineSite(lik factor.Site, y float64, a compile.Affine) compile.AffineSite {
	return compile.AffineSite{Site: compile.Site{Kind: lik.Name(), Lik: lik, Y: y, Params: lik.Params(), Label: lik.Name() + "(…)"}, Aff: a}
}

func posAt(line int) ast.Pos { return ast.Pos{Filename: "fg.fg", Line: line, Column: 1} }

func epSpec(label string, family infer.Family, div infer.Divergence) *compile.InferSpec {
	return &compile.InferSpec{Label: label, Method: infer.MethodEP, Family: family, Approx: infer.Scheme{Kind: infer.SchemeExact},
		Settings: infer.Settings{Divergence: div, Damping: 1, Tol: 1e-10, MaxIter: 200, Seed: 1}}
}

func goldSpec(method infer.Method) *compile.InferSpec {
	s := &compile.InferSpec{Label: string(method), Method: method, Settings: infer.Settings{Damping: 1, Seed: 1}}
	if method == infer.MethodMCMC {
		s.MCMCSpec = infer.MCMCSpec{Samples: 10000, Burnin: 1000, Chains: 4}
	}
	return s
}

// TestFactorGraphChainRTS: a random walk and an AR(1) with drift, observed
// at a subset of steps, run by ep (family full and factorized) and exact
// through infer/run: every marginal and log Z equal the RTS smoother to 1e-9
// after one forward–backward pass.
func TestFactorGraphChainRTS(t *testing.T) {
	obs := map[int]float64{0: 0.3, 3: 1.1, 4: 0.7, 9: -0.4, 15: 0.2, 16: 0.9, 29: 2.5}
	for name, c := range map[string]ar1{
		"random walk": {a: 1, b: 0, q: 0.2, m0: 0, s0: 10, r: 0.5, T: 30, obs: obs},
		"ar1 drift":   {a: 0.8, b: 0.3, q: 0.1, m0: 1, s0: 2, r: 0.25, T: 30, obs: obs},
	} {
		t.Run(name, func(t *testing.T) {
			m := c.model(epSpec("ep", infer.FamilyFull, infer.KL{}), epSpec("ep_f", infer.FamilyFactorized, infer.KL{}), goldSpec(infer.MethodExact))
			rs, err := Run(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			mean, vr, logZ := c.rts()
			for _, r := range rs {
				wantStatus := infer.Converged
				if r.Method == "exact" {
					wantStatus = infer.Done
				}
				if r.Status != wantStatus || !r.HasEvidence || len(r.Variables) != 1 {
					t.Fatalf("%s: status %v (%s), evidence %v, %d variables", r.Label, r.Status, r.Message, r.HasEvidence, len(r.Variables))
				}
				v := r.Variables[0]
				if v.Name != "x" || len(v.Shape) != 1 || v.Shape[0] != c.T {
					t.Errorf("%s: variable %s %v", r.Label, v.Name, v.Shape)
				}
				for i := range mean {
					if math.Abs(v.Mean[i]-mean[i]) > 1e-9 || math.Abs(v.Var[i]-vr[i]) > 1e-9 {
						t.Errorf("%s: x[%d] = (%.12g, %.12g), RTS (%.12g, %.12g)", r.Label, i, v.Mean[i], v.Var[i], mean[i], vr[i])
					}
				}
				if math.Abs(r.LogEvidence-logZ) > 1e-9 {
					t.Errorf("%s: log Z %.12g, RTS %.12g", r.Label, r.LogEvidence, logZ)
				}
				if r.Method == "ep" && r.Iterations > 2 {
					t.Errorf("%s: %d sweeps on a linear-Gaussian chain, want one pass (and its check)", r.Label, r.Iterations)
				}
			}
		})
	}
}

// twoLatentProbit is x ~ N(0, 1) (a scalar latent) and z ~ N(0.5·x, 0.8)
// with one site probit(2z − x + c): a single site, for which EP's moments
// are exact, on an affine expression with a constant over two latents.
func twoLatentProbit(c float64, specs ...*compile.InferSpec) *compile.Model {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Real, 0, nil, posAt(1))
	g.AddLatent("z", graph.Real, 0, []int{1}, posAt(2))
	fg := &compile.FactorGraph{NumVars: 2, First: []int{0, 1}}
	fg.Gaussians = []compile.LinearGaussian{
		{Aff: compile.Affine{Vars: []int{0}, Coefs: []float64{1}}, Var: 1, Target: 0},
		{Aff: compile.Affine{Vars: []int{1, 0}, Coefs: []float64{1, -0.5}}, Var: 0.8, Target: 1},
	}
	fg.Sites = []compile.AffineSite{affineSite(factor.Probit{}, 1, compile.Affine{Vars: []int{1, 0}, Coefs: []float64{2, -1}, Const: c})}
	return &compile.Model{Graph: g, FactorGraph: fg, Infers: specs}
}

// probitClosedForm is the posterior of twoLatentProbit: with the prior
// N(0, Σ), Σ = [[1, 0.5], [0.5, 1.05]], and f = aᵀw + c ~ N(c, s²),
// Z = Φ(κ), κ = c/√(1 + s²), the mean Σa·ρ/√(1+s²) and the covariance
// Σ − Σa aᵀΣ·ρ(κ + ρ)/(1 + s²), ρ = φ(κ)/Φ(κ) (Rasmussen & Williams eq. 3.82).
func probitClosedForm(c float64) (mean, vr []float64, logZ float64) {
	sig := [2][2]float64{{1, 0.5}, {0.5, 1.05}}
	a := [2]float64{-1, 2} // on (x, z)
	sa := [2]float64{sig[0][0]*a[0] + sig[0][1]*a[1], sig[1][0]*a[0] + sig[1][1]*a[1]}
	s2 := a[0]*sa[0] + a[1]*sa[1]
	k := c / math.Sqrt(1+s2)
	rho := distuv.UnitNormal.Prob(k) / distuv.UnitNormal.CDF(k)
	for i := 0; i < 2; i++ {
		mean = append(mean, sa[i]*rho/math.Sqrt(1+s2))
		vr = append(vr, sig[i][i]-sa[i]*sa[i]*rho*(k+rho)/(1+s2))
	}
	return mean, vr, math.Log(distuv.UnitNormal.CDF(k))
}

// TestFactorGraphProbitGold: one probit site on 2z − x + c with a scalar
// and a vector latent: ep (fgraph), exact (quadrature on the joint with the
// site's constant as Offset) equal the closed form, and mcmc (elliptical
// slice on the joint prior) is within 4 Monte Carlo standard errors.
func TestFactorGraphProbitGold(t *testing.T) {
	const c = -0.7
	m := twoLatentProbit(c, epSpec("ep", infer.FamilyFull, infer.KL{}), epSpec("ep_f", infer.FamilyFactorized, infer.KL{}),
		goldSpec(infer.MethodExact), goldSpec(infer.MethodMCMC))
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mean, vr, logZ := probitClosedForm(c)
	for _, r := range rs {
		if !r.Status.HasNumbers() || len(r.Variables) != 2 {
			t.Fatalf("%s: status %v (%s), %d variables", r.Label, r.Status, r.Message, len(r.Variables))
		}
		if r.Variables[0].Name != "x" || r.Variables[0].Shape != nil || r.Variables[1].Name != "z" {
			t.Errorf("%s: variables %s %v, %s", r.Label, r.Variables[0].Name, r.Variables[0].Shape, r.Variables[1].Name)
		}
		tol := map[string]float64{"ep": 1e-9, "exact": 1e-6}[r.Label]
		for i, v := range r.Variables {
			gm, gv := v.Mean[0], v.Var[0]
			switch {
			case r.Label == "mcmc":
				if math.Abs(gm-mean[i]) > 4*v.MeanSE[0] || math.Abs(gv-vr[i]) > 4*v.VarSE[0] {
					t.Errorf("mcmc: %s = (%.5g ± %.2g, %.5g ± %.2g), closed form (%.5g, %.5g)", v.Name, gm, v.MeanSE[0], gv, v.VarSE[0], mean[i], vr[i])
				}
			case r.Label == "ep_f":
				// a factorised family: the site's message is a product of
				// marginal messages, so it is not exact; it only has to converge.
			case math.Abs(gm-mean[i]) > tol || math.Abs(gv-vr[i]) > tol:
				t.Errorf("%s: %s = (%.10g, %.10g), closed form (%.10g, %.10g)", r.Label, v.Name, gm, gv, mean[i], vr[i])
			}
		}
		if (r.Label == "ep" || r.Label == "exact") && math.Abs(r.LogEvidence-logZ) > 1e-6 {
			t.Errorf("%s: log Z %.10g, closed form %.10g", r.Label, r.LogEvidence, logZ)
		}
	}
	if e := rs[0].Errors; e == nil || e.Reference != "exact" || !(e.MeanMAE < 1e-6) {
		t.Errorf("ep's error columns against exact: %+v", e)
	}
}
