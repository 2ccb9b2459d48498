package exact

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/infer"
)

// regression is a Bayesian linear regression y = X w + e, e ~ N(0, s2 I),
// w ~ N(m0, S0), with its closed-form posterior and evidence.
type regression struct {
	x      *mat.Dense
	y      []float64
	s2     float64
	m0     []float64
	s0     *mat.SymDense
	mean   []float64
	cov    *mat.SymDense
	logZ   float64
	loglik func([]float64) float64
}

func newRegression(t *testing.T, d, n int, seed uint64) *regression {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := &regression{x: mat.NewDense(n, d, nil), y: make([]float64, n), s2: 0.5, m0: make([]float64, d)}
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		r.m0[i] = rng.NormFloat64()
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	r.s0 = mat.NewSymDense(d, nil)
	r.s0.SymOuterK(1, a)
	for i := 0; i < d; i++ {
		r.s0.SetSym(i, i, r.s0.At(i, i)+0.5)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			r.x.Set(i, j, rng.NormFloat64())
		}
		r.y[i] = rng.NormFloat64() * 2
	}
	r.closedForm(t)
	return r
}

// setLoglik sets ℓ(w) = −(yᵀy − 2 wᵀXᵀy + wᵀXᵀXw)/(2 s2) − (n/2) log(2π s2)
// from sufficient statistics (cheap for many observations).
func (r *regression) setLoglik() {
	n, d := r.x.Dims()
	var xtx mat.Dense
	xtx.Mul(r.x.T(), r.x)
	var xty mat.VecDense
	xty.MulVec(r.x.T(), mat.NewVecDense(n, r.y))
	yy := mat.Dot(mat.NewVecDense(n, r.y), mat.NewVecDense(n, r.y))
	a, b := xtx.RawMatrix().Data, xty.RawVector().Data
	r.loglik = func(w []float64) float64 {
		q := yy
		for i := 0; i < d; i++ {
			q -= 2 * w[i] * b[i]
			for j := 0; j < d; j++ {
				q += w[i] * a[i*d+j] * w[j]
			}
		}
		return -0.5*q/r.s2 - 0.5*float64(n)*math.Log(2*math.Pi*r.s2)
	}
}

// closedForm: posterior precision A = S0⁻¹ + XᵀX/s2, mean A⁻¹(S0⁻¹m0 + Xᵀy/s2)
// (solved by Cholesky), evidence N(y; X m0, X S0 Xᵀ + s2 I).
func (r *regression) closedForm(t *testing.T) {
	r.setLoglik()
	n, d := r.x.Dims()
	var c0 mat.Cholesky
	if !c0.Factorize(r.s0) {
		t.Fatal("prior not PD")
	}
	var p0 mat.SymDense
	if err := c0.InverseTo(&p0); err != nil {
		t.Fatal(err)
	}
	a := mat.NewSymDense(d, nil)
	a.SymOuterK(1/r.s2, r.x.T())
	a.AddSym(a, &p0)
	var ca mat.Cholesky
	if !ca.Factorize(a) {
		t.Fatal("posterior precision not PD")
	}
	b := mat.NewVecDense(d, nil)
	b.MulVec(&p0, mat.NewVecDense(d, r.m0))
	var xty mat.VecDense
	xty.MulVec(r.x.T(), mat.NewVecDense(n, r.y))
	b.AddScaledVec(b, 1/r.s2, &xty)
	var mean mat.VecDense
	if err := ca.SolveVecTo(&mean, b); err != nil {
		t.Fatal(err)
	}
	r.mean = mean.RawVector().Data
	r.cov = mat.NewSymDense(d, nil)
	if err := ca.InverseTo(r.cov); err != nil {
		t.Fatal(err)
	}
	ky := mat.NewSymDense(n, nil)
	var xs mat.Dense
	xs.Mul(r.x, r.s0)
	var k mat.Dense
	k.Mul(&xs, r.x.T())
	var my mat.VecDense
	my.MulVec(r.x, mat.NewVecDense(d, r.m0))
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			ky.SetSym(i, j, k.At(i, j))
		}
		ky.SetSym(i, i, ky.At(i, i)+r.s2)
	}
	nd, ok := distmv.NewNormal(my.RawVector().Data, ky, nil)
	if !ok {
		t.Fatal("evidence covariance not PD")
	}
	r.logZ = nd.LogProb(r.y)
}

// TestQuadGaussianRegression: posterior mean, covariance and log Z of
// Bayesian linear regression, d = 1, 2, 3, against the closed form. With
// Tol = 1e-10, 1e-8, 1e-6 (d = 1, 2, 3) the stated tolerance is 10·Tol
// (posterior-sd units, log Z absolute), and the actual error must not exceed
// the reported estimate.
func TestQuadGaussianRegression(t *testing.T) {
	for d := 1; d <= 3; d++ {
		r := newRegression(t, d, 4, uint64(10+d))
		tol := []float64{1e-10, 1e-8, 1e-6}[d-1]
		res, err := Run(context.Background(), Problem{Mean: r.m0, Cov: r.s0, LogLik: r.loglik}, Settings{Tol: tol})
		if err != nil || res.Status != infer.Done {
			t.Fatalf("d=%d: %v %v %s", d, err, res.Status, res.Message)
		}
		t.Logf("d=%d evals=%d err=%.2g logZ=%.12f want %.12f", d, res.Evaluations, res.ErrEstimate, res.LogZ, r.logZ)
		checkClose(t, "logZ", res.LogZ, r.logZ, 10*tol)
		checkClose(t, "logZ (vs estimate)", res.LogZ, r.logZ, res.LogZErr+1e-12)
		for i := 0; i < d; i++ {
			si := math.Sqrt(r.cov.At(i, i))
			checkClose(t, "mean", res.Mean[i], r.mean[i], 10*tol*si)
			checkClose(t, "mean (vs estimate)", res.Mean[i], r.mean[i], res.MeanErr[i]+1e-12)
			checkClose(t, "var (vs estimate)", res.Var[i], r.cov.At(i, i), res.VarErr[i]+1e-12)
			for j := 0; j < d; j++ {
				sj := math.Sqrt(r.cov.At(j, j))
				checkClose(t, "cov", res.Cov.At(i, j), r.cov.At(i, j), 10*tol*si*sj)
			}
		}
	}
}

func checkClose(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.12g, want %.12g (|diff| %.3g > tol %.3g)", what, got, want, math.Abs(got-want), tol)
	}
}

// probitLoglik is Σ_i log Φ(y_i x_i w) for scalar w.
func probitLoglik(x, y []float64) func([]float64) float64 {
	return func(w []float64) float64 {
		s := 0.0
		for i := range x {
			s += math.Log(0.5 * math.Erfc(-y[i]*x[i]*w[0]/math.Sqrt2))
		}
		return s
	}
}

// TestQuadProbit1D compares a 1-D probit posterior against 1-D
// Gauss–Legendre quadrature (gonum quad.Fixed, 4000 nodes on m0 ± 14 sd),
// an independent rule on a different interval.
func TestQuadProbit1D(t *testing.T) {
	x := []float64{1.5, -0.7, 2.2, 0.3, -1.1}
	y := []float64{1, 1, -1, 1, -1}
	m0, v0 := 0.4, 2.5
	ll := probitLoglik(x, y)
	post := func(w float64) float64 {
		return math.Exp(ll([]float64{w})) * distuv.Normal{Mu: m0, Sigma: math.Sqrt(v0)}.Prob(w)
	}
	lo, hi := m0-14*math.Sqrt(v0), m0+14*math.Sqrt(v0)
	z := quad.Fixed(post, lo, hi, 4000, quad.Legendre{}, 0)
	m1 := quad.Fixed(func(w float64) float64 { return w * post(w) }, lo, hi, 4000, quad.Legendre{}, 0) / z
	m2 := quad.Fixed(func(w float64) float64 { return w * w * post(w) }, lo, hi, 4000, quad.Legendre{}, 0) / z
	res, err := Run(context.Background(), Problem{Mean: []float64{m0}, Cov: mat.NewSymDense(1, []float64{v0}), LogLik: ll}, Settings{Tol: 1e-9})
	if err != nil || res.Status != infer.Done {
		t.Fatalf("%v %v", err, res.Status)
	}
	checkClose(t, "logZ", res.LogZ, math.Log(z), 1e-9)
	checkClose(t, "mean", res.Mean[0], m1, 1e-9)
	checkClose(t, "var", res.Var[0], m2-m1*m1, 1e-9)
}

// TestDimensionError: quad refuses d > 3 with a message naming d.
func TestDimensionError(t *testing.T) {
	cov := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		cov.SetSym(i, i, 1)
	}
	_, err := Run(context.Background(), Problem{Mean: make([]float64, 4), Cov: cov, LogLik: func([]float64) float64 { return 0 }}, Settings{})
	if err == nil || !strings.Contains(err.Error(), "d = 4") {
		t.Fatalf("want an error naming d = 4, got %v", err)
	}
}

// TestBadInputs: NaN log-likelihood, non-PD covariance and cancellation are
// reported, not returned as NaN.
func TestBadInputs(t *testing.T) {
	one := mat.NewSymDense(1, []float64{1})
	nan := func([]float64) float64 { return math.NaN() }
	for _, m := range []string{"quad", "is"} {
		res, err := Run(context.Background(), Problem{Mean: []float64{0}, Cov: one, LogLik: nan}, Settings{Method: m, Samples: 100})
		if err == nil || res == nil || res.Status != infer.Failed {
			t.Errorf("%s: NaN loglik: want Failed, got %v %v", m, res, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err = Run(ctx, Problem{Mean: []float64{0}, Cov: one, LogLik: func([]float64) float64 { return 0 }}, Settings{Method: m})
		if err == nil || res == nil || res.Status != infer.Canceled {
			t.Errorf("%s: canceled: want Canceled, got %v %v", m, res, err)
		}
	}
	boom := func([]float64) float64 { panic("boom") }
	for _, w := range []int{1, 2} {
		if _, err := Run(context.Background(), Problem{Mean: []float64{0}, Cov: one, LogLik: boom}, Settings{Method: "is", Workers: w, Samples: 100_000}); err == nil {
			t.Errorf("panicking loglik with %d workers: no error", w)
		}
	}
	if _, err := Run(context.Background(), Problem{Mean: []float64{0}, Cov: one, LogLik: boom}, Settings{}); err == nil {
		t.Error("panicking loglik (quad): no error")
	}
	bad := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if _, err := Run(context.Background(), Problem{Mean: []float64{0, 0}, Cov: bad, LogLik: nan}, Settings{}); err == nil {
		t.Error("non-PD covariance accepted")
	}
	zero := func([]float64) float64 { return math.Inf(-1) }
	if _, err := Run(context.Background(), Problem{Mean: []float64{0}, Cov: one, LogLik: zero}, Settings{}); err == nil {
		t.Error("zero likelihood accepted")
	}
}

// TestISGaussianRegression: importance sampling (2e5 samples) with both
// proposals on a 2-D regression with three observations; log Z, means and
// variances within 4 standard errors of the closed form; the adaptive
// proposal is used (its pilot weight ESS is below one half) and has a larger
// weight ESS; the same seed gives the same numbers with 1 or 2 workers.
func TestISGaussianRegression(t *testing.T) {
	r := newRegression(t, 2, 3, 5)
	p := Problem{Mean: r.m0, Cov: r.s0, LogLik: r.loglik}
	ess := map[string]float64{}
	for _, prop := range []string{"prior", "adaptive"} {
		res, err := Run(context.Background(), p, Settings{Method: "is", Proposal: prop, Samples: 200_000, Seed: 3})
		if err != nil || res.Status != infer.Done {
			t.Fatalf("%s: %v %v", prop, err, res)
		}
		t.Logf("%s (%s): weight ESS %.0f, logZ %.5f ± %.5f (want %.5f)", prop, res.Proposal, res.WeightESS, res.LogZ, res.LogZErr, r.logZ)
		ess[prop] = res.WeightESS
		checkClose(t, "logZ", res.LogZ, r.logZ, 4*res.LogZErr)
		for i := 0; i < 2; i++ {
			checkClose(t, "mean", res.Mean[i], r.mean[i], 4*res.MeanErr[i])
			checkClose(t, "var", res.Var[i], r.cov.At(i, i), 4*res.VarErr[i])
		}
		again, _ := Run(context.Background(), p, Settings{Method: "is", Proposal: prop, Samples: 200_000, Seed: 3, Workers: 2})
		if again.LogZ != res.LogZ || again.Mean[0] != res.Mean[0] || again.VarErr[1] != res.VarErr[1] {
			t.Errorf("%s: same seed gave different results with 2 workers", prop)
		}
		if prop == "adaptive" && res.Proposal == "prior" {
			t.Error("adaptive proposal not used")
		}
	}
	if ess["adaptive"] < 2*ess["prior"] {
		t.Errorf("adaptive weight ESS %.0f not above twice the prior's %.0f", ess["adaptive"], ess["prior"])
	}
}

// TestISAdaptiveCalibration: the adaptive proposal's standard errors are
// honest: over 40 seeds (2e4 samples) on the regression, the z-scores of
// log Z, the means and the variances have rms within 0.75–1.3.
func TestISAdaptiveCalibration(t *testing.T) {
	r := newRegression(t, 2, 3, 5)
	p := Problem{Mean: r.m0, Cov: r.s0, LogLik: r.loglik}
	const reps = 40
	var sz [3]float64
	for seed := uint64(0); seed < reps; seed++ {
		res, err := Run(context.Background(), p, Settings{Method: "is", Samples: 20_000, Seed: 100 + seed})
		if err != nil {
			t.Fatal(err)
		}
		z := [3]float64{(res.LogZ - r.logZ) / res.LogZErr, (res.Mean[1] - r.mean[1]) / res.MeanErr[1], (res.Var[0] - r.cov.At(0, 0)) / res.VarErr[0]}
		for k := range z {
			sz[k] += z[k] * z[k]
		}
	}
	for k, name := range []string{"log Z", "mean[1]", "var[0]"} {
		rms := math.Sqrt(sz[k] / reps)
		t.Logf("%s: rms z %.3f", name, rms)
		if rms < 0.75 || rms > 1.3 {
			t.Errorf("%s: rms z-score %.3f, want ≈ 1", name, rms)
		}
	}
}

// logPhi is log Φ(z) via erfc (accurate for z > −37).
func logPhi(z float64) float64 { return math.Log(0.5 * math.Erfc(-z/math.Sqrt2)) }

// TestQuadNarrowPosterior: 2-D and 3-D regressions with 300 observations
// around w = (4, −3, 2): the posterior (sd ≈ 0.04 prior sd) sits 3–4 prior sd
// from the prior mean; stage 2 re-whitens around it. Closed form to 10·Tol.
func TestQuadNarrowPosterior(t *testing.T) {
	for d := 2; d <= 3; d++ {
		r := newRegression(t, d, 300, uint64(40+d))
		truth := []float64{4, -3, 2}
		for i := range r.y {
			r.y[i] = mat.Dot(r.x.RowView(i), mat.NewVecDense(d, truth[:d])) + 0.7*math.Sin(float64(i))
		}
		for i := range r.m0 {
			r.m0[i] = 0
		}
		r.s0 = mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			r.s0.SetSym(i, i, 1)
		}
		r.closedForm(t)
		tol := 1e-6
		res, err := Run(context.Background(), Problem{Mean: r.m0, Cov: r.s0, LogLik: r.loglik}, Settings{Tol: tol})
		if err != nil || res.Status != infer.Done {
			t.Fatalf("d=%d: %v %v", d, err, res)
		}
		checkClose(t, "logZ", res.LogZ, r.logZ, 10*tol)
		for i := 0; i < d; i++ {
			si := math.Sqrt(r.cov.At(i, i))
			checkClose(t, "mean", res.Mean[i], r.mean[i], 10*tol*si)
			checkClose(t, "var", res.Var[i], r.cov.At(i, i), 10*tol*si*si)
		}
	}
}

// stableLogZ is log Z of a Gaussian-likelihood model from the exact
// posterior N(μ, C): log Z = ℓ(μ) + log N(μ; m0, S0) + (d/2) log 2π + ½ log det C,
// which stays accurate where the evidence covariance X S0 Xᵀ + s2 I is
// ill-conditioned.
func (r *regression) stableLogZ(t *testing.T) float64 {
	pf, err := newFrame(r.m0, r.s0)
	if err != nil {
		t.Fatal(err)
	}
	d := len(r.m0)
	var ch mat.Cholesky
	if !ch.Factorize(r.cov) {
		t.Fatal("posterior covariance not PD")
	}
	return r.loglik(r.mean) + pf.logDensity(r.mean, make([]float64, d)) + 0.5*float64(d)*math.Log(2*math.Pi) + 0.5*ch.LogDet()
}

// TestQuadExtremeScales: posteriors 10^4–10^5 times narrower than the prior
// (prior variances up to 1e8, observations scaled by 1e3), where the nodes
// of the prior-whitened initial cells all underflow: the Laplace start frame
// (laplaceFrame) finds the peak. Closed form to 10·Tol.
func TestQuadExtremeScales(t *testing.T) {
	cases := []struct {
		d    int
		vars []float64
	}{{2, []float64{1e-8, 1e8}}, {3, []float64{1e6, 1e6, 1e4}}}
	for _, c := range cases {
		r := newRegression(t, c.d, 3+c.d, uint64(60+c.d))
		r.s0 = mat.NewSymDense(c.d, nil)
		for i, v := range c.vars {
			r.s0.SetSym(i, i, v)
		}
		for i := range r.y {
			r.y[i] *= 1e3
		}
		r.closedForm(t)
		lz := r.stableLogZ(t)
		const tol = 1e-6
		res, err := Run(context.Background(), Problem{Mean: r.m0, Cov: r.s0, LogLik: r.loglik}, Settings{Tol: tol})
		if err != nil || res.Status != infer.Done {
			t.Fatalf("d=%d: %v %v", c.d, err, res)
		}
		t.Logf("d=%d: %d evaluations, log Z %.6f (closed form %.6f)", c.d, res.Evaluations, res.LogZ, lz)
		checkClose(t, "logZ", res.LogZ, lz, 10*tol)
		for i := 0; i < c.d; i++ {
			si := math.Sqrt(r.cov.At(i, i))
			checkClose(t, "mean", res.Mean[i], r.mean[i], 10*tol*si)
			checkClose(t, "var", res.Var[i], r.cov.At(i, i), 10*tol*si*si)
		}
	}
}
