package mcmc

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/exact"
)

// probitGP is GP classification on three inputs (a non-Gaussian posterior):
// f ~ N(0, K) with an SE kernel of variance 2, p(y_i | f_i) = Φ(y_i f_i).
func probitGP() Problem {
	xs := []float64{-1, 0.2, 1.5}
	ys := []float64{1, -1, 1}
	k := mat.NewSymDense(3, nil)
	for i := range xs {
		for j := range xs {
			k.SetSym(i, j, 2*math.Exp(-(xs[i]-xs[j])*(xs[i]-xs[j])/2))
		}
	}
	ll := func(f []float64) float64 {
		s := 0.0
		for i, y := range ys {
			s += math.Log(0.5 * math.Erfc(-y*f[i]/math.Sqrt2))
		}
		return s
	}
	return Problem{Mean: make([]float64, 3), Cov: k, LogLik: ll}
}

// TestESSVersusQuadratureProbitGP: elliptical slice sampling against the
// adaptive cubature of infer/exact (an independent method, error estimate
// ≤ 1e-6) on a 3-D probit GP posterior: means and variances within 4 Monte
// Carlo standard errors.
func TestESSVersusQuadratureProbitGP(t *testing.T) {
	p := probitGP()
	q, err := exact.Run(context.Background(), exact.Problem{Mean: p.Mean, Cov: p.Cov, LogLik: p.LogLik}, exact.Settings{Tol: 1e-6})
	if err != nil || q.Status != infer.Done {
		t.Fatalf("quadrature: %v", err)
	}
	res, err := RunESS(context.Background(), p, Settings{Samples: 5000, Seed: 17})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if d := math.Abs(res.Mean[i] - q.Mean[i]); !(d <= 4*res.MeanSE[i]+q.MeanErr[i]) {
			t.Errorf("mean[%d] = %.4f ± %.4f, quadrature %.5f", i, res.Mean[i], res.MeanSE[i], q.Mean[i])
		}
		if d := math.Abs(res.Var[i] - q.Var[i]); !(d <= 4*res.VarSE[i]+q.VarErr[i]) {
			t.Errorf("var[%d] = %.4f ± %.4f, quadrature %.5f", i, res.Var[i], res.VarSE[i], q.Var[i])
		}
	}
}

// TestESSExpectPredictive: the predictive E[Φ(f_0 + f_2)] of the probit GP by
// ESS draws (Result.Expect) against exact.Result.Expect (cubature), within
// 4 Monte Carlo standard errors; without KeepDraws Expect is an error.
func TestESSExpectPredictive(t *testing.T) {
	p := probitGP()
	g := func(w []float64) float64 { return 0.5 * math.Erfc(-(w[0]+w[2])/math.Sqrt2) }
	q, err := exact.Run(context.Background(), exact.Problem{Mean: p.Mean, Cov: p.Cov, LogLik: p.LogLik}, exact.Settings{Tol: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	want, werr, err := q.Expect(context.Background(), []func([]float64) float64{g})
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunESS(context.Background(), p, Settings{Samples: 3000, Seed: 5, KeepDraws: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := res.Expect(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("E[g] = %.4f ± %.4f (ESS %.0f, R-hat %.3f); cubature %.6f ± %.1g", s.Mean, s.MeanSE, s.ESS, s.RHat, want[0], werr[0])
	if !(math.Abs(s.Mean-want[0]) <= 4*s.MeanSE+werr[0]) {
		t.Errorf("E[g] = %.4f ± %.4f, cubature %.6f", s.Mean, s.MeanSE, want[0])
	}
	res.Draws = nil
	if _, err := res.Expect(g); err == nil {
		t.Error("Expect without draws: no error")
	}
}
