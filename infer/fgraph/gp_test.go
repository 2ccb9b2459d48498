package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"gonum.org/v1/gonum/floats/scalar"
)

// GP classification with a latent bias: f ~ GP(0, K) (a block), b ~ N(0,
// σ_b²), y_i ~ probit(f_i + b), under family = full, equals the same GP
// with the bias folded into the kernel, f' ~ GP(0, K + σ_b² 11ᵀ),
// y_i ~ probit(f'_i) (infer/ep on the folded kernel): both are EP on the
// same joint Gaussian of the projections f_i + b, so the projections'
// marginals, log Z and (relaxed EP) the relaxation weights agree under
// every divergence.
func TestGPWithLatentBias(t *testing.T) {
	const n, sb2 = 12, 0.7
	x := func(i int) float64 { return -3 + 6*float64(i)/(n-1) }
	kern := func(a, b float64) float64 { d := a - b; return 20 * math.Exp(-0.5*d*d/0.8) }
	y := []float64{1, 1, 1, 1, 1, 1, -1, -1, -1, 1, -1, -1} // y[9] is an outlier
	g, ref, _ := biasGP(n, sb2, x, kern, y)
	for _, div := range []infer.Divergence{infer.KL{}, infer.Alpha{A: 0.7}, infer.RelaxedKL{C: 0.05}} {
		set := infer.Settings{Tol: 1e-10, MaxIter: 500, Divergence: div}
		res, err := Run(context.Background(), g, Settings{Settings: set})
		if err != nil || res.Status != infer.Converged {
			t.Fatalf("%v: %v %v", div, err, res)
		}
		want, err := ep.Run(context.Background(), ref, ep.Settings{Settings: set})
		if err != nil || want.Status != infer.Converged {
			t.Fatalf("%v, folded kernel: %v %v", div, err, want.Status)
		}
		for i := 0; i < n; i++ {
			if !scalar.EqualWithinAbs(res.FMean[i], want.Mean[i], 1e-6) || !scalar.EqualWithinAbs(res.FVar[i], want.Var[i], 1e-6) {
				t.Errorf("%v, f[%d] + b: %.9g ± %.9g, folded kernel %.9g ± %.9g", div, i, res.FMean[i], res.FVar[i], want.Mean[i], want.Var[i])
			}
		}
		if res.HasLogZ != want.HasLogZ || (want.HasLogZ && !scalar.EqualWithinAbs(res.LogZ, want.LogZ, 1e-6)) {
			t.Errorf("%v: log Z %.9g (%v), folded kernel %.9g (%v)", div, res.LogZ, res.HasLogZ, want.LogZ, want.HasLogZ)
		}
		if _, ok := div.(infer.RelaxedKL); ok {
			t.Logf("%v: relaxation weights %.3g", div, res.B)
			for i := range want.B {
				if !scalar.EqualWithinAbs(res.B[i], want.B[i], 1e-6) {
					t.Errorf("relaxation weight %d: %g, folded kernel %g", i, res.B[i], want.B[i])
				}
			}
		}
	}
	if _, err := Run(context.Background(), g, Settings{Family: Factorized}); err == nil {
		t.Error("a block under family = factorized: no error")
	}
}
