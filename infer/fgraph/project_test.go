package fgraph

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// biasGP is GP classification with a latent bias (variables 0 … n−1 the
// GP block, n the bias) and the folded-kernel reference of TestGPWithLatentBias.
func biasGP(n int, sb2 float64, x func(int) float64, kern func(a, b float64) float64, y []float64) (*Graph, *ep.Problem, *mat.SymDense) {
	K := mat.NewSymDense(n, nil)
	folded := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			k := kern(x(i), x(j))
			K.SetSym(i, j, k)
			folded.SetSym(i, j, k+sb2)
		}
	}
	g := NewGraph(n + 1)
	vars := make([]int, n)
	for i := range vars {
		vars[i] = i
	}
	g.AddBlock(vars, nil, K)
	g.AddGaussian([]int{n}, []float64{1}, 0, 0, sb2)
	ref := &ep.Problem{Cov: folded}
	for i := 0; i < n; i++ {
		g.AddSite(ep.Probit{}, y[i], []int{i, n}, []float64{1, 1}, 0)
		ref.Sites = append(ref.Sites, ep.Site{Lik: ep.Probit{}, Y: y[i], Index: i})
	}
	return g, ref, K
}

// TestProjectGPBias checks Result.Project on the joint EP posterior of a
// GP with a latent bias: the predictive g* = f* + b at new inputs x*, with
// f* | f ~ N(aᵀf, k** − k*ᵀa), a = K⁻¹k*, is the projection [aᵀ, 1] of
// (f, b) plus the conditional variance, and must equal GP prediction with
// the folded kernel k + σ_b² (infer/ep's Predict, GPML's formulas) to 1e-6.
func TestProjectGPBias(t *testing.T) {
	const n, sb2 = 10, 0.7
	x := func(i int) float64 { return -3 + 6*float64(i)/(n-1) }
	kern := func(a, b float64) float64 { d := a - b; return 4 * math.Exp(-0.5*d*d/0.8) }
	y := []float64{1, 1, 1, -1, 1, 1, -1, -1, 1, -1}
	res, _ := checkBiasGPPredictions(t, n, sb2, x, kern, y, []float64{-3.5, -1.2, 0.05, 2.2, 4}, 1e-6)
	vars := make([]int, n+1)
	if _, _, err := (&Result{Mean: res.Mean}).Project(vars, mat.NewDense(1, n+1, nil)); err == nil {
		t.Error("Project without Settings.Cov: no error")
	}
}

// checkBiasGPPredictions runs the GP with a latent bias (biasGP) under
// family = full with Settings.Cov and EP on the folded kernel, and checks
// the predictive f* + b at xs: f* | f ~ N(aᵀf, k** − k*ᵀa), a = K⁻¹k*, is
// the projection [aᵀ, 1] of (f, b) plus the conditional variance, and must
// equal GP prediction with the folded kernel k + σ_b² (infer/ep's Predict,
// GPML's formulas) to tol. It returns both results.
func checkBiasGPPredictions(t *testing.T, n int, sb2 float64, x func(int) float64, kern func(a, b float64) float64, y, xs []float64, tol float64) (*Result, *ep.Result) {
	t.Helper()
	g, ref, K := biasGP(n, sb2, x, kern, y)
	set := infer.Settings{Tol: 1e-11, MaxIter: 500}
	res, err := Run(context.Background(), g, Settings{Settings: set, Cov: true})
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("%v %v", err, res)
	}
	want, err := ep.Run(context.Background(), ref, ep.Settings{Settings: set})
	if err != nil || want.Status != infer.Converged {
		t.Fatalf("folded: %v %v", err, want)
	}
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("K not positive definite")
	}
	P := mat.NewDense(len(xs), n+1, nil)
	resid := make([]float64, len(xs))
	kstar := mat.NewDense(len(xs), n, nil)
	kss := make([]float64, len(xs))
	for r, xr := range xs {
		ks := mat.NewVecDense(n, nil)
		for i := 0; i < n; i++ {
			ks.SetVec(i, kern(xr, x(i)))
			kstar.Set(r, i, kern(xr, x(i))+sb2)
		}
		kss[r] = kern(xr, xr) + sb2
		var a mat.VecDense
		if err := ch.SolveVecTo(&a, ks); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			P.Set(r, i, a.AtVec(i))
		}
		P.Set(r, n, 1)
		resid[r] = kern(xr, xr) - mat.Dot(ks, &a)
	}
	vars := make([]int, n+1)
	for i := range vars {
		vars[i] = i
	}
	mean, vr, err := res.Project(vars, P)
	if err != nil {
		t.Fatal(err)
	}
	wm, wv, err := want.Predict(kstar, kss, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := range xs {
		if v := vr[r] + resid[r]; !scalar.EqualWithinAbs(mean[r], wm[r], tol) || !scalar.EqualWithinAbs(v, wv[r], tol) {
			t.Errorf("x* = %g: f* + b %.12g ± %.12g, folded kernel %.12g ± %.12g", xs[r], mean[r], v, wm[r], wv[r])
		}
	}
	return res, want
}

// TestProjectLinearGaussian checks Project on an exact linear-Gaussian
// chain (run on the dense joint because of Settings.Cov) against the
// posterior covariance formed here by inverting the precision, and under
// Factorized against the product of the marginals.
func TestProjectLinearGaussian(t *testing.T) {
	const n = 5
	g := NewGraph(n)
	lam := mat.NewSymDense(n, nil)
	h := mat.NewVecDense(n, nil)
	add := func(vars []int, coefs []float64, y, v float64) {
		g.AddGaussian(vars, coefs, 0, y, v)
		for i, vi := range vars {
			h.SetVec(vi, h.AtVec(vi)+coefs[i]*y/v)
			for j, vj := range vars {
				if vj >= vi {
					lam.SetSym(vi, vj, lam.At(vi, vj)+coefs[i]*coefs[j]/v)
				}
			}
		}
	}
	add([]int{0}, []float64{1}, 0, 4)
	for i := 1; i < n; i++ {
		add([]int{i, i - 1}, []float64{1, -0.9}, 0, 0.5)
	}
	add([]int{1}, []float64{1}, 1.5, 0.2)
	add([]int{4}, []float64{1}, -0.5, 0.3)
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		t.Fatal("precision not positive definite")
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		t.Fatal(err)
	}
	var mu mat.VecDense
	if err := ch.SolveVecTo(&mu, h); err != nil {
		t.Fatal(err)
	}
	vars := []int{3, 0, 4}
	X := mat.NewDense(2, 3, []float64{1, -2, 0.5, 0, 1, 1})
	res, err := Run(context.Background(), g, Settings{Cov: true})
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("%v %v", err, res)
	}
	mean, vr, err := res.Project(vars, X)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		var m, v float64
		for i, vi := range vars {
			m += X.At(r, i) * mu.AtVec(vi)
			for j, vj := range vars {
				v += X.At(r, i) * X.At(r, j) * cov.At(vi, vj)
			}
		}
		if !scalar.EqualWithinAbs(mean[r], m, 1e-10) || !scalar.EqualWithinAbs(vr[r], v, 1e-10) {
			t.Errorf("row %d: %.12g ± %.12g, closed form %.12g ± %.12g", r, mean[r], vr[r], m, v)
		}
	}
	fres, err := Run(context.Background(), g, Settings{Family: Factorized, Cov: true})
	if err != nil || fres.Status != infer.Converged {
		t.Fatalf("factorized: %v %v", err, fres)
	}
	mean, vr, err = fres.Project(vars, X)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		var m, v float64
		for i, vi := range vars {
			a := X.At(r, i)
			m += a * fres.Mean[vi]
			v += a * a * fres.Var[vi]
		}
		if !scalar.EqualWithinAbs(mean[r], m, 1e-12) || !scalar.EqualWithinAbs(vr[r], v, 1e-12) {
			t.Errorf("factorized row %d: %.12g ± %.12g, product of beliefs %.12g ± %.12g", r, mean[r], vr[r], m, v)
		}
	}
	if _, _, err := res.Project([]int{0, 0}, mat.NewDense(1, 2, nil)); err == nil {
		t.Error("a repeated variable: no error")
	}
}

// BenchmarkProjectGPBias runs joint EP on a GP with a latent bias (n
// inputs) with Settings.Cov and then projects 100 new inputs (the rows a
// predict reads), so the cost of keeping and reading the joint posterior
// shows beside the run:
//
//	go test -run '^$' -bench ProjectGPBias -benchtime 3x ./infer/fgraph
func BenchmarkProjectGPBias(b *testing.B) {
	for _, n := range []int{100, 400} {
		x := func(i int) float64 { return -3 + 6*float64(i)/float64(n-1) }
		kern := func(a, c float64) float64 {
			d := a - c
			k := 2 * math.Exp(-0.5*d*d/0.3)
			if a == c {
				k += 1e-4
			}
			return k
		}
		y := make([]float64, n)
		for i := range y {
			y[i] = 1
			if math.Sin(3*x(i)) < -0.3 {
				y[i] = -1
			}
		}
		g, _, _ := biasGP(n, 1.5, x, kern, y)
		vars := make([]int, n+1)
		for i := range vars {
			vars[i] = i
		}
		P := mat.NewDense(100, n+1, nil)
		for r := 0; r < 100; r++ {
			P.Set(r, r*n/100, 1)
			P.Set(r, n, 1)
		}
		b.Run(fmt.Sprintf("n=%d/run", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), g, Settings{Cov: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
		res, err := Run(context.Background(), g, Settings{Cov: true})
		if err != nil || !res.Status.HasNumbers() {
			b.Fatal(err, res.Status)
		}
		b.Run(fmt.Sprintf("n=%d/project100", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := res.Project(vars, P); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
