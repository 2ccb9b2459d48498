package mcmc

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/mathx"
	"github.com/fg-infer/fg/internal/testkit"
)

// probitWalkProblem is the probit walk of testkit.ProbitWalkLabels as a
// ChainProblem: x_0 ~ N(0, 1), x_t ~ N(x_{t−1}, q), sites Φ(y_t x_t).
func probitWalkProblem(T int, q float64) ChainProblem {
	ys := testkit.ProbitWalkLabels(T, q)
	p := ChainProblem{N: T + 1}
	p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{0}, Coefs: []float64{1}, Var: 1})
	for t := 1; t <= T; t++ {
		p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}, Var: q})
	}
	for t, y := range ys {
		p.Sites = append(p.Sites, ChainSite{Vars: []int{t}, Coefs: []float64{1}, LogLik: func(f float64) float64 { return mathx.LogPhi(y * f) }})
	}
	return p
}

// checkChainResult requires every coordinate's mean and variance within
// 4 Monte Carlo standard errors of the reference, split R-hat ≤ 1.01 and
// bulk ESS ≥ minESS, and returns the largest |z| of the means and
// variances.
func checkChainResult(t *testing.T, res *Result, mean, vr []float64, minESS float64) (zm, zv float64) {
	t.Helper()
	if res.Status != infer.Done {
		t.Fatalf("status %v (%s)", res.Status, res.Message)
	}
	for i := range mean {
		a, b := math.Abs(res.Mean[i]-mean[i])/res.MeanSE[i], math.Abs(res.Var[i]-vr[i])/res.VarSE[i]
		zm, zv = math.Max(zm, a), math.Max(zv, b)
		if !(a <= 4) || !(b <= 4) {
			t.Errorf("x[%d]: mcmc %.4f ± %.4f (MCSE %.2g, %.2g), reference %.4f ± %.4f", i, res.Mean[i], res.Var[i], res.MeanSE[i], res.VarSE[i], mean[i], vr[i])
		}
	}
	if r := slices.Max(res.RHat); !(r <= 1.01) {
		t.Errorf("max R-hat %.4f", r)
	}
	if e := slices.Min(res.ESS); !(e >= minESS) {
		t.Errorf("min bulk ESS %.0f, want ≥ %.0f", e, minESS)
	}
	return zm, zv
}

// velocityChain is a scalar-ordered chain of 2-D states (position p_t at
// 2t, velocity v_t at 2t+1): v_t ~ N(v_{t−1}, 0.05), p_t ~ N(p_{t−1} +
// v_{t−1}, 0.02), half-bandwidth 3, with Gaussian observations of p_t
// (conjugate, as factors) at even t, and at odd t Gaussian observations
// of p_t + v_t given as sites (sampled by the particles): the posterior is
// Gaussian, its precision Λ and h = Λμ written out densely.
func velocityChain(T int) (ChainProblem, *mat.SymDense, []float64) {
	n := 2 * T
	p := ChainProblem{N: n}
	lam, h := mat.NewSymDense(n, nil), make([]float64, n)
	add := func(vars []int, coefs []float64, y, v float64) {
		p.Gaussians = append(p.Gaussians, LinearFactor{Vars: vars, Coefs: coefs, Y: y, Var: v})
		for a, i := range vars {
			h[i] += coefs[a] * y / v
			for b, j := range vars {
				if i <= j {
					lam.SetSym(i, j, lam.At(i, j)+coefs[a]*coefs[b]/v)
				}
			}
		}
	}
	add([]int{0}, []float64{1}, 0, 4)
	add([]int{1}, []float64{1}, 0.5, 1)
	for t := 1; t < T; t++ {
		add([]int{2*t + 1, 2*t - 1}, []float64{1, -1}, 0, 0.05)
		add([]int{2 * t, 2*t - 2, 2*t - 1}, []float64{1, -1, -1}, 0, 0.02)
	}
	for t := 0; t < T; t++ {
		y := 0.3*float64(t) + math.Sin(float64(t))
		if t%2 == 0 {
			add([]int{2 * t}, []float64{1}, y, 0.5)
			continue
		}
		vars, coefs := []int{2 * t, 2*t + 1}, []float64{1, 1}
		p.Sites = append(p.Sites, ChainSite{Vars: vars, Coefs: coefs, Const: 0.1,
			LogLik: func(f float64) float64 { return -0.5 * (y - f) * (y - f) / 0.3 }})
		for a, i := range vars {
			h[i] += coefs[a] * (y - 0.1) / 0.3
			for b, j := range vars {
				if i <= j {
					lam.SetSym(i, j, lam.At(i, j)+coefs[a]*coefs[b]/0.3)
				}
			}
		}
	}
	return p, lam, h
}

// TestChainGaussian: on a Gaussian posterior whose sites the particles
// carry (velocityChain) the draws agree with the dense closed form —
// μ = Λ⁻¹h and the diagonal of Λ⁻¹ by gonum's Cholesky — within 4 Monte
// Carlo standard errors for every coordinate, with R-hat ≤ 1.01.
func TestChainGaussian(t *testing.T) {
	p, lam, h := velocityChain(40)
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		t.Fatal("Λ not positive definite")
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		t.Fatal(err)
	}
	var mu mat.VecDense
	if err := ch.SolveVecTo(&mu, mat.NewVecDense(len(h), h)); err != nil {
		t.Fatal(err)
	}
	mean, vr := make([]float64, p.N), make([]float64, p.N)
	for i := range mean {
		mean[i], vr[i] = mu.AtVec(i), cov.At(i, i)
	}
	res, err := RunChain(context.Background(), p, ChainSettings{Samples: 1000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	zm, zv := checkChainResult(t, res, mean, vr, 400)
	t.Logf("max |z| mean %.2f, var %.2f; min ESS %.0f of %d draws", zm, zv, slices.Min(res.ESS), res.Chains*res.Samples)
}

// gaussOf is the Gaussian of p's linear-Gaussian factors, N(μ, Σ), by
// dense Cholesky of its precision Λ (Λμ = h).
func gaussOf(t *testing.T, p ChainProblem) (mu []float64, cov *mat.SymDense) {
	lam, h := mat.NewSymDense(p.N, nil), make([]float64, p.N)
	for _, f := range p.Gaussians {
		for a, i := range f.Vars {
			h[i] += f.Coefs[a] * (f.Y - f.Const) / f.Var
			for b, j := range f.Vars {
				if i <= j {
					lam.SetSym(i, j, lam.At(i, j)+f.Coefs[a]*f.Coefs[b]/f.Var)
				}
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		t.Fatal("Λ not positive definite")
	}
	cov = mat.NewSymDense(p.N, nil)
	if err := ch.InverseTo(cov); err != nil {
		t.Fatal(err)
	}
	var m mat.VecDense
	if err := ch.SolveVecTo(&m, mat.NewVecDense(p.N, h)); err != nil {
		t.Fatal(err)
	}
	return m.RawVector().Data, cov
}

// TestChainNoSites: without sites each sweep is an independent exact draw
// of the Gaussian: bulk ESS near the number of draws, moments within 4
// MCSE of the closed form.
func TestChainNoSites(t *testing.T) {
	p, _, _ := velocityChain(20)
	p.Sites = nil
	mu, cov := gaussOf(t, p)
	vr := make([]float64, p.N)
	for i := range vr {
		vr[i] = cov.At(i, i)
	}
	res, err := RunChain(context.Background(), p, ChainSettings{Samples: 500, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkChainResult(t, res, mu, vr, 0.7*2000)
}

// TestChainVectorProbitAgainstESS: a chain of 2-D states (velocityChain)
// seen through probit labels of p_t + v_t, a site on two elements, at odd
// steps: particle Gibbs against elliptical slice sampling on the dense
// joint prior (RunESS, an independent sampler, 4 × 5000 draws), every
// element's mean and variance within 4 combined standard errors
// √(MCSE₁² + MCSE₂²), with particle Gibbs's R-hat ≤ 1.01 at 4 × 3000
// draws. The tightly coupled position and velocity mix more slowly than
// the scalar walk: bulk ESS ≈ 500 of the 12000 draws (R-hat 1.024 at
// 4 × 1000).
func TestChainVectorProbitAgainstESS(t *testing.T) {
	if testing.Short() {
		t.Skip("4 × 3000 particle Gibbs sweeps and 4 × 7500 elliptical slice iterations")
	}
	p, _, _ := velocityChain(30)
	for i := range p.Sites {
		y := 1.0
		if i%3 == 1 {
			y = -1
		}
		p.Sites[i].LogLik = func(f float64) float64 { return mathx.LogPhi(y * (f - 2)) }
	}
	pg, err := RunChain(context.Background(), p, ChainSettings{Samples: 3000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	mu, cov := gaussOf(t, p)
	ll := func(w []float64) float64 {
		s := 0.0
		for _, site := range p.Sites {
			f := site.Const
			for e, v := range site.Vars {
				f += site.Coefs[e] * w[v]
			}
			s += site.LogLik(f)
		}
		return s
	}
	es, err := RunESS(context.Background(), Problem{Mean: mu, Cov: cov, LogLik: ll}, Settings{Samples: 5000, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	zm, zv := 0.0, 0.0
	for i := range mu {
		a := math.Abs(pg.Mean[i]-es.Mean[i]) / math.Hypot(pg.MeanSE[i], es.MeanSE[i])
		b := math.Abs(pg.Var[i]-es.Var[i]) / math.Hypot(pg.VarSE[i], es.VarSE[i])
		zm, zv = math.Max(zm, a), math.Max(zv, b)
		if !(a <= 4) || !(b <= 4) {
			t.Errorf("x[%d]: particle Gibbs %.4f ± %.4f, elliptical slice %.4f ± %.4f", i, pg.Mean[i], pg.Var[i], es.Mean[i], es.Var[i])
		}
	}
	if r := slices.Max(pg.RHat); !(r <= 1.01) {
		t.Errorf("particle Gibbs max R-hat %.4f", r)
	}
	t.Logf("max |z| mean %.2f, var %.2f; min ESS particle Gibbs %.0f, elliptical slice %.0f", zm, zv, slices.Min(pg.ESS), slices.Min(es.ESS))
}

// TestChainProbitWalk: the first 150 steps of the probit walk against its
// exact posterior (testkit.GridSmoother), every step within 4 MCSE, at
// 1000 draws per chain with R-hat ≤ 1.01 and bulk ESS ≥ 400.
func TestChainProbitWalk(t *testing.T) {
	const T, q = 150, 0.1
	mean, vr := testkit.GridSmoother(testkit.ProbitWalkLabels(T, q), q, -20, 25, 0.02)
	res, err := RunChain(context.Background(), probitWalkProblem(T, q), ChainSettings{Samples: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	zm, zv := checkChainResult(t, res, mean, vr, 400)
	t.Logf("max |z| mean %.2f, var %.2f; min ESS %.0f of %d draws", zm, zv, slices.Min(res.ESS), res.Chains*res.Samples)
}

// TestChainErrors: bad problems and settings are refused with an error
// before sampling; a site whose likelihood is zero everywhere finds no
// start; a NaN log-likelihood fails the run.
func TestChainErrors(t *testing.T) {
	walk := func() ChainProblem { return probitWalkProblem(20, 0.1) }
	p := walk()
	p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{0, 20}, Coefs: []float64{1, 1}, Var: 1})
	if _, err := RunChain(context.Background(), p, ChainSettings{}); !errors.Is(err, ErrNotBanded) {
		t.Errorf("a factor across the chain: %v, want ErrNotBanded", err)
	}
	bad := map[string]func(*ChainProblem, *ChainSettings){
		"particles":  func(p *ChainProblem, s *ChainSettings) { s.Particles = 1 },
		"variable":   func(p *ChainProblem, s *ChainSettings) { p.Sites[3].Vars = []int{21} },
		"coefs":      func(p *ChainProblem, s *ChainSettings) { p.Sites[3].Coefs = nil },
		"variance":   func(p *ChainProblem, s *ChainSettings) { p.Gaussians[2].Var = 0 },
		"nan":        func(p *ChainProblem, s *ChainSettings) { p.Gaussians[2].Y = math.NaN() },
		"nil loglik": func(p *ChainProblem, s *ChainSettings) { p.Sites[0].LogLik = nil },
		"chains":     func(p *ChainProblem, s *ChainSettings) { s.Chains = infer.MaxChains + 1 },
	}
	for name, mod := range bad {
		p, s := walk(), ChainSettings{}
		mod(&p, &s)
		if res, err := RunChain(context.Background(), p, s); err == nil || res != nil {
			t.Errorf("%s: no error", name)
		}
	}
	p = walk()
	p.Sites[5].LogLik = func(float64) float64 { return math.Inf(-1) }
	if _, err := RunChain(context.Background(), p, ChainSettings{Samples: 10}); !errors.Is(err, ErrNoStart) {
		t.Errorf("zero likelihood: %v, want ErrNoStart", err)
	}
	p = walk()
	p.Sites[5].LogLik = func(float64) float64 { return math.NaN() }
	if res, err := RunChain(context.Background(), p, ChainSettings{Samples: 10}); err == nil || res == nil || res.Status != infer.Failed {
		t.Errorf("NaN log-likelihood: %v, %v", res, err)
	}
}

// TestChainCancel: a sweep of a long chain stops within testkit.StopCPU
// of CPU time after the cancellation, as Canceled.
func TestChainCancel(t *testing.T) {
	testkit.LimitProcs(t)
	p := probitWalkProblem(50000, 0.1)
	ctx, cancel := context.WithCancel(context.Background())
	at := make(chan time.Duration, 1)
	time.AfterFunc(300*time.Millisecond, func() { at <- testkit.ProcessCPU(t); cancel() })
	res, err := RunChain(ctx, p, ChainSettings{Samples: 10, Chains: 2})
	if d := testkit.ProcessCPU(t) - <-at; d > testkit.StopCPU {
		t.Errorf("returned after %v of CPU time after the cancellation", d)
	}
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != infer.Canceled {
		t.Errorf("got %v, %v", res, err)
	}
}

// A context canceled before the chain's set-up ends gives a Canceled
// result too (as RunChain's doc says), not a nil one.
func TestChainCanceledInSetUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := RunChain(ctx, probitWalkProblem(20000, 0.1), ChainSettings{Samples: 10, Chains: 2}) // its set-up checks the context every 2¹⁴ factors
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != infer.Canceled {
		t.Errorf("got %v, %v", res, err)
	}
}
