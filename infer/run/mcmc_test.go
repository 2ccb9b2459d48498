package run

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
)

// regression3D40 is the 3-weight, 40-point classification model of the
// false-convergence cases
// (the likelihood is "probit", "step(…, 0.1)" or, with the labels as real
// responses, "normal(…, 0.25)"), with inputs and labels drawn from a seeded
// PCG source: w_true = (1, −0.5, 0.8), y = sign(xᵀw + ε), ε ~ N(0, 0.25).
func regression3D40(lik, infer string) string {
	rng := rand.New(rand.NewPCG(15, 3))
	var xs, ys []string
	for i := 0; i < 40; i++ {
		x := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		xs = append(xs, fmt.Sprintf("[%.4f, %.4f, %.4f]", x[0], x[1], x[2]))
		y := "1"
		if x[0]-0.5*x[1]+0.8*x[2]+0.5*rng.NormFloat64() < 0 {
			y = "-1"
		}
		ys = append(ys, y)
	}
	site, ytype := "probit(dot(X[i], w))", "spin"
	switch lik {
	case "step":
		site = "step(dot(X[i], w), 0.1)"
	case "normal":
		site, ytype = "normal(dot(X[i], w), 0.25)", "real"
	}
	return fmt.Sprintf(`data X: real[40, 3] = [%s]
data y: %s[40] = [%s]
latent w: real[3] ~ normal(0, 1)
for i in 0..40 { y[i] ~ %s }
%s
`, strings.Join(xs, ", "), ytype, strings.Join(ys, ", "), site, infer)
}

// TestMCMC3D40ClosedForm: `infer mcmc` with its defaults on the 3-D,
// 40-point model with a Gaussian likelihood: means and variances within 4
// Monte Carlo standard errors of the closed-form posterior (linregClosedForm),
// bulk ESS ≥ 400 and rank-normalised R-hat ≤ 1.01 for every weight.
func TestMCMC3D40ClosedForm(t *testing.T) {
	m := compileSrc(t, regression3D40("normal", "infer mcmc"))
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	X, y := mat.NewDense(40, 3, m.Data["X"].Num), mat.NewVecDense(40, m.Data["y"].Num)
	mean, vr, _ := linregClosedForm(X, y, 1, 0.25)
	checkWithinSE(t, rs[0], mean, vr, nil, nil)
}

// TestMCMC3D40Exact: `infer mcmc` with its defaults against `infer exact`
// (adaptive cubature, its own error estimate added to the tolerance) on the
// probit 3-D, 40-point model: within 4 Monte Carlo standard errors, bulk
// ESS ≥ 400 and R-hat ≤ 1.01. Cubature over 40 sites takes seconds, so this
// runs without -short. (On the step model cubature stops at its evaluation
// budget, so it gives no reference there.)
func TestMCMC3D40Exact(t *testing.T) {
	if testing.Short() {
		t.Skip("cubature reference takes seconds")
	}
	m := compileSrc(t, regression3D40("probit", "infer mcmc\ninfer exact"))
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := rs[1].Variables.At(0)
	if rs[1].Status != infer.Done {
		t.Fatalf("exact %v: %s", rs[1].Status, rs[1].Message)
	}
	checkWithinSE(t, rs[0], ref.Mean, ref.Var, ref.MeanSE, ref.VarSE)
}

// checkWithinSE checks an mcmc result against reference means and
// variances (with their own error bounds, nil for a closed form) within 4
// Monte Carlo standard errors, and its diagnostics against Stan's thresholds.
func checkWithinSE(t *testing.T, r *infer.Result, mean, vr, meanErr, varErr []float64) {
	t.Helper()
	if r.Status != infer.Done {
		t.Fatalf("%s: %v: %s", r.Label, r.Status, r.Message)
	}
	v := r.Variables.At(0)
	at := func(x []float64, i int) float64 {
		if x == nil {
			return 0
		}
		return x[i]
	}
	for i := range mean {
		t.Logf("w[%d]: %.4f ± %.4f (ref %.4f), var %.4f ± %.4f (ref %.4f), bulk ESS %.0f, R-hat %.4f",
			i, v.Mean[i], v.MeanSE[i], mean[i], v.Var[i], v.VarSE[i], vr[i], v.ESS[i], v.RHat[i])
		if !(math.Abs(v.Mean[i]-mean[i]) <= 4*v.MeanSE[i]+at(meanErr, i)) || !(math.Abs(v.Var[i]-vr[i]) <= 4*v.VarSE[i]+at(varErr, i)) {
			t.Errorf("w[%d] = %.4f (var %.4f), reference %.4f (var %.4f): beyond 4 standard errors", i, v.Mean[i], v.Var[i], mean[i], vr[i])
		}
		if v.ESS[i] < 400 || v.RHat[i] > 1.01 {
			t.Errorf("w[%d]: bulk ESS %.0f (want ≥ 400), R-hat %.4f (want ≤ 1.01)", i, v.ESS[i], v.RHat[i])
		}
	}
}

// BenchmarkMCMC3D40 runs `infer mcmc` with its defaults on the 3-D,
// 40-point model through the same path as fg run and reports the smallest
// bulk ESS over the weights per second of wall time (ess/s) and in total.
func BenchmarkMCMC3D40(b *testing.B) {
	for _, lik := range []string{"probit", "step"} {
		b.Run(lik, func(b *testing.B) {
			m, err := compile.CompileSource("bench.fg", []byte(regression3D40(lik, "infer mcmc")), compile.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ess, secs := 0.0, 0.0
			for b.Loop() {
				rs, err := Run(context.Background(), m, Options{})
				if err != nil {
					b.Fatal(err)
				}
				r := rs[0]
				ess += minFloat(r.Variables.At(0).ESS)
				secs += r.Runtime.Seconds()
			}
			b.ReportMetric(ess/secs, "ess/s")
			b.ReportMetric(ess/float64(b.N), "ess")
		})
	}
}

func minFloat(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}
