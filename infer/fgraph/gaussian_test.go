package fgraph

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

func checkGaussian(t *testing.T, res *Result, mean, vari []float64, logZ, tol float64) {
	t.Helper()
	if res.Status != infer.Converged {
		t.Fatalf("status %v: %s", res.Status, res.Message)
	}
	for i := range mean {
		if !scalar.EqualWithinAbsOrRel(res.Mean[i], mean[i], tol, tol) ||
			!scalar.EqualWithinAbsOrRel(res.Var[i], vari[i], tol, tol) {
			t.Errorf("variable %d: %.12g ± %.12g, closed form %.12g ± %.12g", i, res.Mean[i], res.Var[i], mean[i], vari[i])
		}
	}
	if !res.HasLogZ || !scalar.EqualWithinAbsOrRel(res.LogZ, logZ, tol, tol) {
		t.Errorf("log Z %.12g (%v), closed form %.12g", res.LogZ, res.HasLogZ, logZ)
	}
}

// Eight schools (Rubin 1981; Gelman et al., BDA §5.5) in hierarchical form
// with the between-school sd fixed: mu ~ N(0, 10²), theta_j ~ N(mu, tau²),
// y_j ~ N(theta_j, sigma_j²). A tree: one forward–backward pass is exact.
func TestEightSchoolsHierarchy(t *testing.T) {
	y := []float64{28, 8, -3, 7, -1, 1, 18, 12}
	sigma := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	const tau, smu = 5.0, 10.0
	J := len(y)
	g := NewGraph(J + 1) // theta_0..7, mu = J
	g.AddGaussian([]int{J}, []float64{1}, 0, 0, smu*smu)
	for j := 0; j < J; j++ {
		g.AddGaussian([]int{j, J}, []float64{1, -1}, 0, 0, tau*tau)
		g.AddGaussian([]int{j}, []float64{1}, 0, y[j], sigma[j]*sigma[j])
	}
	// z = (theta, mu): Cov(mu) = smu², Cov(theta_i, theta_j) = smu² + tau² δ_ij.
	P := mat.NewSymDense(J+1, nil)
	for i := 0; i <= J; i++ {
		for j := i; j <= J; j++ {
			P.SetSym(i, j, smu*smu)
		}
		if i < J {
			P.SetSym(i, i, smu*smu+tau*tau)
		}
	}
	H := mat.NewDense(J, J+1, nil)
	R := mat.NewSymDense(J, nil)
	for j := 0; j < J; j++ {
		H.Set(j, j, 1)
		R.SetSym(j, j, sigma[j]*sigma[j])
	}
	mean, vari, logZ := testkit.GaussCondition(make([]float64, J+1), P, H, R, y)
	for _, fam := range []Family{Full, Factorized} {
		res, err := Run(context.Background(), g, Settings{Family: fam})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Exact || res.Iterations != 1 {
			t.Errorf("%v: exact %v after %d passes, want exact after one", fam, res.Exact, res.Iterations)
		}
		checkGaussian(t, res, mean, vari, logZ, 1e-9)
	}
}

// Linear regression with a separate intercept latent: w ~ N(0, I),
// b ~ N(0, 4), y_i ~ N(x_iᵀw + b, 0.25). Every observation touches all
// latents (a loopy graph): family = full solves the joint Gaussian.
func TestRegressionWithIntercept(t *testing.T) {
	X := [][]float64{{0.5, -1.2}, {1.5, 0.3}, {-0.7, 0.8}, {2.1, -0.4}, {-1.3, -1.9}, {0.2, 1.1}}
	y := []float64{1.1, 2.9, 0.4, 3.5, -0.6, 1.7}
	const noise, sb = 0.25, 4.0
	N, D := len(X), len(X[0])
	g := NewGraph(D + 1)
	for d := 0; d < D; d++ {
		g.AddGaussian([]int{d}, []float64{1}, 0, 0, 1)
	}
	g.AddGaussian([]int{D}, []float64{1}, 0, 0, sb)
	H := mat.NewDense(N, D+1, nil)
	R := mat.NewSymDense(N, nil)
	for i, x := range X {
		g.AddGaussian([]int{0, 1, D}, []float64{x[0], x[1], 1}, 0, y[i], noise)
		H.SetRow(i, append(append([]float64(nil), x...), 1))
		R.SetSym(i, i, noise)
	}
	P := mat.NewSymDense(D+1, nil)
	for d := 0; d < D; d++ {
		P.SetSym(d, d, 1)
	}
	P.SetSym(D, D, sb)
	mean, vari, logZ := testkit.GaussCondition(make([]float64, D+1), P, H, R, y)
	res, err := Run(context.Background(), g, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkGaussian(t, res, mean, vari, logZ, 1e-9)

	// Gaussian BP on the loopy graph: exact means at its fixed point
	// (Weiss & Freeman 2001), variances only approximate.
	factorizedMeans(t, g, mean, infer.Settings{Tol: 1e-12, MaxIter: 5000})
}

// A wide regression (12 weights and an intercept, 40 observations, factors
// of degree 13 > wideFactor): Gaussian BP's means under every schedule and
// the full family's marginals and log Z equal the closed form.
func TestWideRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	const N, D, noise = 40, 12, 0.3
	g := NewGraph(D + 1)
	for d := 0; d <= D; d++ {
		g.AddGaussian([]int{d}, []float64{1}, 0, 0, 1)
	}
	H := mat.NewDense(N, D+1, nil)
	R := mat.NewSymDense(N, nil)
	y := make([]float64, N)
	vars := make([]int, D+1)
	for d := range vars {
		vars[d] = d
	}
	for i := 0; i < N; i++ {
		row := make([]float64, D+1)
		for d := 0; d < D; d++ {
			row[d] = rng.NormFloat64()
		}
		row[D] = 1
		y[i] = rng.NormFloat64()
		g.AddGaussian(vars, row, 0, y[i], noise)
		H.SetRow(i, row)
		R.SetSym(i, i, noise)
	}
	P := mat.NewSymDense(D+1, nil)
	for d := 0; d <= D; d++ {
		P.SetSym(d, d, 1)
	}
	mean, vari, logZ := testkit.GaussCondition(make([]float64, D+1), P, H, R, y)
	res, err := Run(context.Background(), g, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkGaussian(t, res, mean, vari, logZ, 1e-9)
	factorizedMeans(t, g, mean, infer.Settings{Tol: 1e-12, MaxIter: 20000, Damping: 0.5})
}

// factorizedMeans runs g under family = factorized with every loopy
// schedule and requires convergence to the closed-form means.
func factorizedMeans(t *testing.T, g *Graph, mean []float64, set infer.Settings) {
	t.Helper()
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel, infer.Residual} {
		set.Schedule = sched
		res, err := Run(context.Background(), g, Settings{Family: Factorized, Settings: set})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("factorized, %v: %v after %d sweeps", sched, res.Status, res.Iterations)
		if res.Status != infer.Converged {
			t.Errorf("factorized, %v: %v (%s)", sched, res.Status, res.Message)
			continue
		}
		for i := range mean {
			if !scalar.EqualWithinAbsOrRel(res.Mean[i], mean[i], 1e-8, 1e-8) {
				t.Errorf("factorized, %v: mean %d: %.12g, closed form %.12g", sched, i, res.Mean[i], mean[i])
			}
		}
	}
}
