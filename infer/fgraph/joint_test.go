package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// illN is the number of inputs of illConditioned.
const illN = 20

// illConditioned returns the inputs, kernel and labels of an
// ill-conditioned GP classification: illN inputs 0.32 apart under an se
// kernel of variance 2 and lengthscale 1 (cond K ≈ 1e11, no jitter).
func illConditioned() (x func(int) float64, kern func(a, b float64) float64, y []float64) {
	x = func(i int) float64 { return -3.04 + 0.32*float64(i) }
	kern = func(a, b float64) float64 { d := a - b; return 2 * math.Exp(-0.5*d*d) }
	y = make([]float64, illN)
	for i := range y {
		y[i] = 1
		if math.Sin(1.3*x(i)) < -0.2 || i == 7 {
			y[i] = -1
		}
	}
	return x, kern, y
}

// TestGPWithLatentBiasIllConditioned is the GP with a latent bias on an
// ill-conditioned kernel, with no jitter: 20 inputs 0.32 apart under an se
// kernel of variance 2 and lengthscale 1 (cond K ≈ 1e11). The joint prior
// in covariance form holds K as given, so the projections' marginals,
// log Z and the predictions through Result.Project equal EP on the folded
// kernel K + σ_b²11ᵀ (infer/ep) to 1e-8 (an information form, K⁻¹ added to
// a precision and inverted back, was 1e-4 off in means, variances, log Z
// and predictions). The prediction points lie within the inputs: beyond
// them a = K⁻¹k* grows to |a| ≈ 1e5 (x* = 4), and the projection aᵀΣa itself
// rounds at |a|²ε‖Σ‖ ≈ 1e-6, whatever the engine.
func TestGPWithLatentBiasIllConditioned(t *testing.T) {
	const n, sb2 = illN, 0.7
	x, kern, y := illConditioned()
	res, want := checkBiasGPPredictions(t, n, sb2, x, kern, y, []float64{-2.9, -1.17, 0.05, 1.3, 2.95}, 1e-8)
	for i := 0; i < n; i++ {
		if !scalar.EqualWithinAbs(res.FMean[i], want.Mean[i], 1e-8) || !scalar.EqualWithinAbs(res.FVar[i], want.Var[i], 1e-8) {
			t.Errorf("f[%d] + b: %.12g ± %.12g, folded kernel %.12g ± %.12g", i, res.FMean[i], res.FVar[i], want.Mean[i], want.Var[i])
		}
	}
	if !res.HasLogZ || !want.HasLogZ || !scalar.EqualWithinAbs(res.LogZ, want.LogZ, 1e-8) {
		t.Errorf("log Z %.12g (%v), folded kernel %.12g (%v)", res.LogZ, res.HasLogZ, want.LogZ, want.HasLogZ)
	}
	// Without Settings.Cov the same joint runs (the sites need it).
	g, _, _ := biasGP(n, sb2, x, kern, y)
	plain, err := Run(context.Background(), g, Settings{Settings: infer.Settings{Tol: 1e-11, MaxIter: 500}})
	if err != nil || plain.Status != infer.Converged {
		t.Fatal(err, plain)
	}
	for i := range plain.Mean {
		if plain.Mean[i] != res.Mean[i] || plain.Var[i] != res.Var[i] {
			t.Errorf("x[%d]: %g ± %g without Cov, %g ± %g with", i, plain.Mean[i], plain.Var[i], res.Mean[i], res.Var[i])
		}
	}
}

// TestJointForms checks the covariance form of a directed linear-Gaussian
// graph (conditional before prior, a defining coefficient ≠ 1, more
// observations than variables so that condition runs in chunks) against
// the information form of the same factors, and an undirected graph
// (which takes the information form) against its closed form.
func TestJointForms(t *testing.T) {
	g := NewGraph(3)
	g.AddGaussian([]int{1, 0}, []float64{2, -3}, -1, 0, 0.5) // x1 = (3x0 + 1)/2 + ε, Var ε = 0.125
	g.AddGaussian([]int{2, 1}, []float64{-0.5, 1}, 0.2, 0.4, 0.7)
	g.AddGaussian([]int{0}, []float64{1}, 0, 0.5, 2)
	for i, y := range []float64{1.2, -0.3, 2.5, 0.8, 1.1} {
		g.AddGaussian([]int{i % 3, (i + 1) % 3}, []float64{1, 0.5 * float64(i+1)}, 0.1, y, 0.3)
	}
	if _, ok := direct(g, newAdjacency(g)); !ok {
		t.Fatal("a directed graph was not peeled")
	}
	want, err := informationJoint(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), g, Settings{dense: true})
	if err != nil || !res.Exact {
		t.Fatal(err, res)
	}
	mean, cov, err := g.Gaussian()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if !scalar.EqualWithinAbs(res.Mean[i], want.mean[i], 1e-12) || !scalar.EqualWithinAbs(res.Var[i], want.vr[i], 1e-12) || mean[i] != res.Mean[i] {
			t.Errorf("x[%d]: %.15g ± %.15g (Gaussian %.15g), information form %.15g ± %.15g", i, res.Mean[i], res.Var[i], mean[i], want.mean[i], want.vr[i])
		}
		for j := 0; j < 3; j++ {
			if !scalar.EqualWithinAbs(cov.At(i, j), want.cov.At(i, j), 1e-12) {
				t.Errorf("cov[%d, %d]: %.15g, information form %.15g", i, j, cov.At(i, j), want.cov.At(i, j))
			}
		}
	}
	if !scalar.EqualWithinAbs(res.LogZ, want.logZ, 1e-12) {
		t.Errorf("log Z %.15g, information form %.15g", res.LogZ, want.logZ)
	}

	// ∫ N(0; x0 + x1, 1) N(1; x0 − x1, 2) dx = ½ (u = x0 + x1, w = x0 − x1,
	// dx = du dw / 2): mean (½, −½), variances ¾.
	u := NewGraph(2)
	u.AddGaussian([]int{0, 1}, []float64{1, 1}, 0, 0, 1)
	u.AddGaussian([]int{0, 1}, []float64{1, -1}, 0, 1, 2)
	if _, ok := direct(u, newAdjacency(u)); ok {
		t.Fatal("an undirected graph was peeled")
	}
	ur, err := Run(context.Background(), u, Settings{})
	if err != nil || !ur.Exact {
		t.Fatal(err, ur)
	}
	for i, m := range []float64{0.5, -0.5} {
		if !scalar.EqualWithinAbs(ur.Mean[i], m, 1e-14) || !scalar.EqualWithinAbs(ur.Var[i], 0.75, 1e-14) {
			t.Errorf("undirected x[%d]: %g ± %g, want %g ± 0.75", i, ur.Mean[i], ur.Var[i], m)
		}
	}
	if !scalar.EqualWithinAbs(ur.LogZ, -math.Ln2, 1e-14) {
		t.Errorf("undirected log Z %g, want −log 2", ur.LogZ)
	}
}

// TestGaussianPriorExact checks Graph.Gaussian, the prior of the gold
// standards (infer/run's joint block for exact and mcmc), on the
// ill-conditioned GP with a latent bias: with no observation it is the
// blocks' N(0, K) and the bias's N(0, σ_b²) exactly, bit for bit.
func TestGaussianPriorExact(t *testing.T) {
	const n, sb2 = illN, 0.7
	x, kern, y := illConditioned()
	g, _, K := biasGP(n, sb2, x, kern, y)
	prior := NewGraph(n + 1)
	prior.blocks = g.blocks
	prior.AddGaussian([]int{n}, []float64{1}, 0, 0, sb2)
	mean, cov, err := prior.Gaussian()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			want := 0.0
			switch {
			case i < n && j < n:
				want = K.At(i, j)
			case i == n && j == n:
				want = sb2
			}
			if cov.At(i, j) != want {
				t.Errorf("cov[%d, %d] = %g, want %g", i, j, cov.At(i, j), want)
			}
		}
		if mean[i] != 0 {
			t.Errorf("mean[%d] = %g, want 0", i, mean[i])
		}
	}
}

// TestJointChunks checks the chunked Cholesky conditioning (more than
// smallJoint variables, more observations than variables: two chunks, the
// last kept as Σ − VᵀV) on a random walk of 150 steps observed at every
// step and at 100 sums x_t + x_{t+1}: marginals, log Z and the projections
// of Result.Project against the information form of the same factors.
func TestJointChunks(t *testing.T) {
	const T = 150
	g := newChain(T, 0.95, 0.1, 1, 5).graph()
	for i := 0; i < 100; i++ {
		g.AddGaussian([]int{i, i + 1}, []float64{1, 1}, 0.3, math.Sin(float64(i)), 0.4)
	}
	d, ok := direct(g, newAdjacency(g))
	if !ok || len(d.obs) <= T || T <= smallJoint {
		t.Fatalf("directed %v with %d observations over %d variables", ok, len(d.obs), T)
	}
	want, err := informationJoint(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), g, Settings{dense: true, Cov: true})
	if err != nil || !res.Exact {
		t.Fatal(err, res)
	}
	for i := 0; i < T; i++ {
		if !scalar.EqualWithinAbs(res.Mean[i], want.mean[i], 1e-9) || !scalar.EqualWithinAbs(res.Var[i], want.vr[i], 1e-9) {
			t.Errorf("x[%d]: %.12g ± %.12g, information form %.12g ± %.12g", i, res.Mean[i], res.Var[i], want.mean[i], want.vr[i])
		}
	}
	if !scalar.EqualWithinAbs(res.LogZ, want.logZ, 1e-9) {
		t.Errorf("log Z %.12g, information form %.12g", res.LogZ, want.logZ)
	}
	vars := []int{3, 70, 149}
	X := mat.NewDense(2, 3, []float64{1, -2, 0.5, 0, 1, 1})
	mean, vr, err := res.Project(vars, X)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		m, v := 0.0, 0.0
		for i, vi := range vars {
			m += X.At(r, i) * want.mean[vi]
			for j, vj := range vars {
				v += X.At(r, i) * want.cov.At(vi, vj) * X.At(r, j)
			}
		}
		if !scalar.EqualWithinAbs(mean[r], m, 1e-9) || !scalar.EqualWithinAbs(vr[r], v, 1e-9) {
			t.Errorf("projection %d: %.12g ± %.12g, information form %.12g ± %.12g", r, mean[r], vr[r], m, v)
		}
	}
}

// TestInformationJointNoCancellation: on a long track far from the origin
// (a random walk drifting by 500 a step, 2000 steps, states up to 10⁶),
// ½ hᵀΛ⁻¹h and Σ_k (y_k − c_k)²/σ_k² are both about 10¹⁶, so the log
// normaliser written as their difference kept no digit below 1; written
// with the residuals at the mean it agrees with the band's (which never
// forms either) to 1e-8, and so do the means.
func TestInformationJointNoCancellation(t *testing.T) {
	const T = 2000
	c := newChain(T, 1, 500, 1, 7)
	g := c.graph()
	want, err := bandJoint(g, bandwidth(g), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := informationJoint(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(got.logZ, want.logZ, 1e-8) {
		t.Errorf("log Z: information form %.12g, band %.12g (Δ %.3g)", got.logZ, want.logZ, got.logZ-want.logZ)
	}
	for i := 0; i < T; i += 97 {
		if !scalar.EqualWithinRel(got.mean[i], want.mean[i], 1e-10) || !scalar.EqualWithinRel(got.vr[i], want.vr[i], 1e-8) {
			t.Errorf("x[%d]: %.12g ± %.12g, band %.12g ± %.12g", i, got.mean[i], got.vr[i], want.mean[i], want.vr[i])
		}
	}
}
