package ep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

func randInputs(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	return X
}

func run(t *testing.T, p *Problem, s Settings) *Result {
	t.Helper()
	res, err := Run(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Converged {
		t.Fatalf("status %v: %s", res.Status, res.Message)
	}
	return res
}

func settings(sched infer.Schedule, d infer.Divergence) Settings {
	return Settings{Settings: infer.Settings{Schedule: sched, Divergence: d, Tol: 1e-11, MaxIter: 1000, Seed: 3}}
}

func close(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*math.Max(1, math.Abs(want[i]))) {
			t.Errorf("%s[%d] = %.15g, want %.15g (diff %.3g, tol %g)", what, i, got[i], want[i], d, tol)
			return
		}
	}
}

// TestRegressionClosedForm: with Gaussian sites EP is exact, so its posterior
// and log Z_EP must equal the closed-form GP regression posterior
//
//	μ = m0 + K (K + σ²I)⁻¹ (y − m0),  Σ = K − K (K + σ²I)⁻¹ K,
//	log Z = log N(y; m0, K + σ²I),
//
// computed with a Cholesky of K + σ²I (gaussClosed). Tolerance 1e-9.
func TestRegressionClosedForm(t *testing.T) {
	const n, s2 = 30, 0.3
	X := randInputs(n, 2, 1)
	K := kernel.SE{Lengthscale: 0.9, Var: 1.4}.Matrix(X)
	rng := rand.New(rand.NewPCG(2, 2))
	y, m0 := make([]float64, n), make([]float64, n)
	p := &Problem{Cov: K, Mean: m0}
	for i := range y {
		m0[i] = 0.2 * X.At(i, 0)
		y[i] = math.Sin(2*X.At(i, 0)) + 0.5*rng.NormFloat64()
		p.Sites = append(p.Sites, Site{Lik: Gaussian{Var: s2}, Y: y[i], Index: i})
	}
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = s2
	}
	wantLogZ, wantMu, wantVar := gaussClosed(t, K, noise, y, m0)
	for k, sched := range []infer.Schedule{infer.Sequential, infer.Parallel, infer.Random, infer.Sequential} {
		var div infer.Divergence = infer.KL{}
		if k == 3 {
			// Power EP is exact for Gaussian sites too, and its evidence
			// approximation must then be the exact log Z.
			div = infer.Alpha{A: 0.5}
		}
		res := run(t, p, settings(sched, div))
		close(t, sched.String()+" mean", res.Mean, wantMu, 1e-9)
		close(t, sched.String()+" var", res.Var, wantVar, 1e-9)
		if !(math.Abs(res.LogZ-wantLogZ) <= 1e-9*math.Abs(wantLogZ)) {
			t.Errorf("%v: log Z = %.12g, closed form %.12g", sched, res.LogZ, wantLogZ)
		}
		if res.Iterations > 3 && k < 3 {
			t.Errorf("%v: exact sites took %d sweeps", sched, res.Iterations)
		}
	}
}

// TestLinearModelClosedForm: Bayesian linear regression through projection
// sites (f_i = x_iᵀw) against the closed form Σ_w = (K⁻¹ + XᵀX/σ²)⁻¹,
// μ_w = Σ_w (K⁻¹ m0 + Xᵀy/σ²), computed with explicit Cholesky solves in d = 3.
func TestLinearModelClosedForm(t *testing.T) {
	const n, d, s2 = 40, 3, 0.5
	X := randInputs(n, d, 4)
	K := mat.NewSymDense(d, []float64{2, 0.3, 0, 0.3, 1, 0.2, 0, 0.2, 1.5})
	m0 := []float64{0.1, -0.2, 0.3}
	p := &Problem{Cov: K, Mean: m0}
	rng := rand.New(rand.NewPCG(5, 5))
	y := make([]float64, n)
	for i := range y {
		y[i] = X.At(i, 0) - 2*X.At(i, 2) + rng.NormFloat64()
		p.Sites = append(p.Sites, Site{Lik: Gaussian{Var: s2}, Y: y[i], Proj: X.RawRowView(i)})
	}
	var ck mat.Cholesky
	ck.Factorize(K)
	Kinv := mat.NewSymDense(d, nil)
	_ = ck.InverseTo(Kinv) // test-only closed form in 3 dimensions
	P := mat.NewSymDense(d, nil)
	P.SymOuterK(1/s2, X.T())
	P.AddSym(P, Kinv)
	var cp mat.Cholesky
	cp.Factorize(P)
	h := mat.NewVecDense(d, nil)
	h.MulVec(Kinv, mat.NewVecDense(d, m0))
	xty := mat.NewVecDense(d, nil)
	xty.MulVec(X.T(), mat.NewVecDense(n, y))
	h.AddScaledVec(h, 1/s2, xty)
	mu := mat.NewVecDense(d, nil)
	_ = cp.SolveVecTo(mu, h)
	S := mat.NewSymDense(d, nil)
	_ = cp.InverseTo(S)
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
		res := run(t, p, settings(sched, infer.KL{}))
		close(t, "mean", res.Mean, mu.RawVector().Data, 1e-9)
		cov, err := res.Cov()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < d; i++ {
			close(t, "cov row", []float64{cov.At(i, 0), cov.At(i, 1), cov.At(i, 2)}, []float64{S.At(i, 0), S.At(i, 1), S.At(i, 2)}, 1e-9)
			if !(math.Abs(res.Var[i]-S.At(i, i)) <= 1e-9) {
				t.Errorf("var[%d] = %g, want %g", i, res.Var[i], S.At(i, i))
			}
		}
		Xs := randInputs(5, d, 9)
		pm, pv, err := res.PredictLinear(Xs)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 5; j++ {
			x := Xs.RowView(j)
			sx := mat.NewVecDense(d, nil)
			sx.MulVec(S, x)
			if !(math.Abs(pm[j]-mat.Dot(x, mu)) <= 1e-9) || !(math.Abs(pv[j]-mat.Dot(x, sx)) <= 1e-9) {
				t.Errorf("PredictLinear[%d] = (%g, %g), want (%g, %g)", j, pm[j], pv[j], mat.Dot(x, mu), mat.Dot(x, sx))
			}
		}
	}
}

func probitProblem(n int, seed uint64) (*Problem, *mat.Dense, kernel.Kernel) {
	X := randInputs(n, 2, seed)
	k := kernel.SE{Lengthscale: 1.2, Var: 2}
	p := &Problem{Cov: k.Matrix(X)}
	for i := 0; i < n; i++ {
		y := 1.0
		if X.At(i, 0)*X.At(i, 1) < 0.2 {
			y = -1
		}
		p.Sites = append(p.Sites, Site{Lik: Probit{}, Y: y, Index: i})
	}
	return p, X, k
}

// TestSchedulesSameFixedPoint: sequential, random-order and parallel EP reach
// the same fixed point (1e-8) on probit GP classification and on a
// step-likelihood linear model with projection sites.
func TestSchedulesSameFixedPoint(t *testing.T) {
	p, _, _ := probitProblem(60, 11)
	X := randInputs(50, 3, 12)
	lin := &Problem{Cov: mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})}
	for i := 0; i < 50; i++ {
		y := 1.0
		if X.At(i, 0)+0.5*X.At(i, 1) < 0 {
			y = -1
		}
		lin.Sites = append(lin.Sites, Site{Lik: Step{Eps: 0}, Y: y, Proj: X.RawRowView(i)})
	}
	for k, prob := range []*Problem{p, lin} {
		ref := run(t, prob, settings(infer.Sequential, infer.KL{}))
		for _, sched := range []infer.Schedule{infer.Random, infer.Parallel} {
			s := settings(sched, infer.KL{})
			if k == 1 && sched == infer.Parallel {
				// 50 sites on 3 weights all move from the same posterior:
				// undamped parallel EP overshoots and oscillates (R ≈ 2).
				s.Damping = 0.2
			}
			res := run(t, prob, s)
			close(t, sched.String()+" mean", res.Mean, ref.Mean, 1e-8)
			close(t, sched.String()+" var", res.Var, ref.Var, 1e-8)
			if !(math.Abs(res.LogZ-ref.LogZ) <= 1e-8*math.Abs(ref.LogZ)) {
				t.Errorf("%v: log Z %.12g vs sequential %.12g", sched, res.LogZ, ref.LogZ)
			}
		}
	}
}

// TestDampingSameFixedPoint: damping changes the path, not the fixed point.
func TestDampingSameFixedPoint(t *testing.T) {
	p, _, _ := probitProblem(40, 13)
	ref := run(t, p, settings(infer.Sequential, infer.KL{}))
	s := settings(infer.Parallel, infer.KL{})
	s.Damping = 0.5
	res := run(t, p, s)
	close(t, "damped mean", res.Mean, ref.Mean, 1e-8)
	if res.Iterations <= ref.Iterations {
		t.Errorf("damped run took %d sweeps, undamped %d", res.Iterations, ref.Iterations)
	}
}

// TestAlphaOneIsEP: power EP with α = 1 is EP exactly (bit for bit).
func TestAlphaOneIsEP(t *testing.T) {
	p, _, _ := probitProblem(30, 14)
	a := run(t, p, settings(infer.Sequential, infer.KL{}))
	b := run(t, p, settings(infer.Sequential, infer.Alpha{A: 1}))
	for i := range a.Mean {
		if a.Mean[i] != b.Mean[i] || a.Var[i] != b.Var[i] {
			t.Fatalf("alpha(1) differs from kl at %d: %g vs %g", i, b.Mean[i], a.Mean[i])
		}
	}
	if !b.HasLogZ || b.LogZ != a.LogZ {
		t.Error("alpha(1) should report log Z_EP like kl")
	}
	c := run(t, p, settings(infer.Sequential, infer.RelaxedKL{C: 1}))
	if c.HasLogZ {
		t.Error("relaxed_kl claims an evidence")
	}
}

// TestRelaxedLargeCIsEP: relaxed EP with c → ∞ prunes every b to 0 and is EP
// to machine precision.
func TestRelaxedLargeCIsEP(t *testing.T) {
	p, _, _ := probitProblem(30, 15)
	for i := range p.Sites {
		p.Sites[i].Lik = Step{Eps: 0.1}
	}
	a := run(t, p, settings(infer.Sequential, infer.KL{}))
	b := run(t, p, settings(infer.Sequential, infer.RelaxedKL{C: 1e12}))
	close(t, "relaxed mean", b.Mean, a.Mean, 1e-14)
	close(t, "relaxed var", b.Var, a.Var, 1e-14)
	for i, bi := range b.B {
		if bi != 0 {
			t.Errorf("b[%d] = %g with c = 1e12", i, bi)
		}
	}
}

// TestWarmStart: starting from converged sites converges in one sweep to the
// same posterior.
func TestWarmStart(t *testing.T) {
	p, _, _ := probitProblem(40, 16)
	a := run(t, p, settings(infer.Sequential, infer.KL{}))
	p.Init = a.Sites
	b := run(t, p, settings(infer.Sequential, infer.KL{}))
	if b.Iterations != 1 {
		t.Errorf("warm start took %d sweeps", b.Iterations)
	}
	close(t, "warm mean", b.Mean, a.Mean, 1e-10)
}

// TestSkippedCavity: a site whose cavity precision would be non-positive
// (power 2 with a large warm-start precision) is skipped and counted, and no
// NaN reaches the result.
func TestSkippedCavity(t *testing.T) {
	p := &Problem{Cov: mat.NewSymDense(1, []float64{1}),
		Sites: []Site{{Lik: Probit{}, Y: 1, Index: 0}}, Init: []families.Gaussian{{Prec: 5, Shift: 1}}}
	res, err := Run(context.Background(), p, settings(infer.Sequential, infer.Alpha{A: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped == 0 {
		t.Error("no update skipped")
	}
	for _, v := range append(res.Mean, res.Var...) {
		if math.IsNaN(v) {
			t.Fatal("NaN in result")
		}
	}
}

func TestCanceled(t *testing.T) {
	p, _, _ := probitProblem(20, 17)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, p, settings(infer.Sequential, infer.KL{}))
	if err == nil || res == nil || res.Status != infer.Canceled {
		t.Fatalf("got %v, %v", res, err)
	}
}

func TestInvalidProblems(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	bad := []*Problem{
		nil,
		{Cov: K},
		{Cov: K, Sites: []Site{{Lik: Probit{}, Y: 0.5}}},
		{Cov: K, Sites: []Site{{Lik: Probit{}, Y: 1, Index: 2}}},
		{Cov: K, Sites: []Site{{Lik: Probit{}, Y: 1, Proj: []float64{1}}}},
		{Cov: K, Sites: []Site{{Lik: Step{Eps: 0.7}, Y: 1}}},
		{Cov: K, Sites: []Site{{Lik: Gaussian{Var: 0}, Y: 1}}},
		{Cov: K, Mean: []float64{0}, Sites: []Site{{Lik: Probit{}, Y: 1}}},
	}
	for i, p := range bad {
		if _, err := Run(context.Background(), p, Settings{}); err == nil {
			t.Errorf("problem %d accepted", i)
		}
	}
	good := &Problem{Cov: K, Sites: []Site{{Lik: Probit{}, Y: 1}}}
	for _, s := range []Settings{
		{Settings: infer.Settings{Divergence: infer.T{Nu: 3}}},
		{Settings: infer.Settings{Divergence: infer.Alpha{A: -1}}},
		{Settings: infer.Settings{Damping: 1.5}},
		{Settings: infer.Settings{Schedule: infer.Residual}},
	} {
		if _, err := Run(context.Background(), good, s); err == nil {
			t.Errorf("settings %+v accepted", s)
		}
	}
}

// TestBformMixedSigns: with some negative site precisions the B-form
// posterior Σ = Kf − Kf S B⁻¹ S Kf must equal (Kf⁻¹ + T)⁻¹ and log|det B| must
// equal log det(I + T Kf); both are checked against direct dense solves
// (LU of I + Kf T, then Σ = (I + Kf T)⁻¹ Kf).
func TestBformMixedSigns(t *testing.T) {
	const n = 6
	K := kernel.SE{Lengthscale: 1, Var: 1.5}.Matrix(randInputs(n, 2, 21))
	tau := []float64{0.8, -0.05, 1.3, 0, -0.1, 2}
	bf, err := newBform(K, tau, nil, nil)
	if err != nil || !bf.indefinite {
		t.Fatalf("newBform: %v (indefinite %v)", err, bf != nil && bf.indefinite)
	}
	M := mat.NewDense(n, n, nil) // I + Kf T
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			M.Set(i, j, K.At(i, j)*tau[j])
		}
		M.Set(i, i, M.At(i, i)+1)
	}
	var lu mat.LU
	lu.Factorize(M)
	ld, sign := lu.LogDet()
	if sign < 0 || !(math.Abs(ld-bf.logDet) <= 1e-12) {
		t.Errorf("log det %g (sign %g), B-form %g", ld, sign, bf.logDet)
	}
	want := mat.NewDense(n, n, nil)
	if err := lu.SolveTo(want, false, K); err != nil {
		t.Fatal(err)
	}
	st, err := recompute(&projection{identity: true, K: K, Kf: K, m0: make([]float64, n), f0: make([]float64, n)}, sitesOf(tau), true, scratch{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if !(math.Abs(st.sigma.At(i, j)-want.At(i, j)) <= 1e-12) {
				t.Fatalf("Σ[%d,%d] = %g, direct %g", i, j, st.sigma.At(i, j), want.At(i, j))
			}
		}
	}
}

func sitesOf(tau []float64) []families.Gaussian {
	s := make([]families.Gaussian, len(tau))
	for i, t := range tau {
		s[i] = families.Gaussian{Prec: t, Shift: 0.1 * float64(i)}
	}
	return s
}

// TestGradLogZ compares GradLogZ with central finite differences of log Z_EP
// (EP rerun to tol 1e-12 at θ ± 1e-4) in the SE kernel's log hyperparameters,
// on probit and on step (ε = 0.1, negative-precision sites allowed) data.
func TestGradLogZ(t *testing.T) {
	X := randInputs(25, 2, 31)
	y := make([]float64, 25)
	for i := range y {
		y[i] = 1
		if X.At(i, 0)+0.3*X.At(i, 1)*X.At(i, 1) < 0.2 {
			y[i] = -1
		}
	}
	for _, lik := range []Likelihood{Probit{}, Step{Eps: 0.1}} {
		k := kernel.SE{Lengthscale: 0.9, Var: 1.7}
		logZ := func(k kernel.Kernel) *Result {
			p := &Problem{Cov: k.Matrix(X)}
			for i := range y {
				p.Sites = append(p.Sites, Site{Lik: lik, Y: y[i], Index: i})
			}
			s := settings(infer.Sequential, infer.KL{})
			s.Tol = 1e-12
			return run(t, p, s)
		}
		res := logZ(k)
		g, err := res.GradLogZ(k.Grad(X))
		if err != nil {
			t.Fatal(err)
		}
		h := k.Hyper()
		for j := range h {
			const step = 1e-4
			hp, hm := append([]float64(nil), h...), append([]float64(nil), h...)
			hp[j] += step
			hm[j] -= step
			kp, _ := k.WithHyper(hp)
			km, _ := k.WithHyper(hm)
			fd := (logZ(kp).LogZ - logZ(km).LogZ) / (2 * step)
			if d := g[j] - fd; d > 1e-6*math.Max(1, math.Abs(fd)) || d < -1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: d log Z/d %s = %.9g, finite difference %.9g", lik.Name(), k.HyperNames()[j], g[j], fd)
			}
		}
	}
}
