package run

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
)

// TestDisplayPredictions: a Display grid answered from 1000 draws (exact:
// cells of the quadrature partition; mcmc: thinned draws) agrees with the
// same grid integrated point by point (exact.Expect, every MCMC draw) to
// within 4 Monte Carlo standard errors of 1000 independent draws,
// 4·½/√1000 ≈ 0.063, on the toy step classifier whose exact boundary is
// not EP's.
func TestDisplayPredictions(t *testing.T) {
	src := `model d
data X: real[5, 2] = [[-2, 1], [-1, 2], [1, -1], [2, -2], [3, 1]]
data y: spin[5] = [-1, -1, 1, 1, -1]
latent w: real[2] ~ normal(0, 1)
for i in 0..5 {
  y[i] ~ step(dot(X[i], w), 0.2)
}
infer exact
infer mcmc { samples = 20000, seed = 3 }
`
	m := compileSrc(t, src)
	var grid []float64
	for _, x := range []float64{-2, -1, 1, 2, 3} {
		for _, y := range []float64{-1, 0.5, 1.5} {
			grid = append(grid, x, y)
		}
	}
	xnew := mat.NewDense(len(grid)/2, 2, grid)
	base := compile.PredictSpec{Block: 0, Xnew: xnew, Lik: factor.Step{Eps: 0.2}}
	full, display := base, base
	full.Name, display.Name, display.Display = "full", "display", true
	m.Predicts = append(m.Predicts, &full, &display)
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		var f, d []float64
		for _, p := range r.Predictions {
			switch p.Name {
			case "full":
				f = p.Prob
			case "display":
				d = p.Prob
			}
		}
		if len(f) != xnew.RawMatrix().Rows || len(d) != len(f) {
			t.Fatalf("%s: predictions %d and %d", r.Label, len(f), len(d))
		}
		worst := 0.0
		for i := range f {
			worst = math.Max(worst, math.Abs(f[i]-d[i]))
			if !(math.Abs(f[i]-d[i]) <= 0.063) {
				t.Errorf("%s: point %v: display p = %.4f, integrated %.4f", r.Label, xnew.RawRowView(i), d[i], f[i])
			}
		}
		t.Logf("%s: largest |display − integrated| = %.4f", r.Label, worst)
	}
}
