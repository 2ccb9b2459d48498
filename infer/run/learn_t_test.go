package run

import (
	"context"
	"math"
	"strconv"
	"testing"
)

// TestLearnT: learning the prior scale of a Bayes point machine with probit
// sites under t-EP (with step sites the evidence would not depend on the
// scale: the likelihood sees only the direction of w). The last point
// contradicts its neighbour, so the evidence has an interior optimum.
// The reference is an independent grid search of the same objective (the
// t-EP evidence of futami §4.3 at each scale): Nelder–Mead must land at a
// value at least as good as the best grid point and next to it.
func TestLearnT(t *testing.T) {
	src := `
data X: real[7, 2] = [[1, 0.5], [-0.3, 1], [0.7, -1.2], [2, 0.1], [-1.5, -0.4], [0.2, 1.7], [0.9, 0.6]]
data y: spin[7] = [1, -1, 1, 1, -1, -1, -1]
param s = 1
latent w: real[2] ~ student_t(10, 0, s)
for i in 0..7 { y[i] ~ probit(dot(X[i], w)) }
learn s
infer ep { divergence = t(nu = 10) }
`
	m := compileSrc(t, src)
	out, learned, trace, err := Learn(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(learned) != 1 || len(trace) == 0 || out.Learn != nil {
		t.Fatalf("learned %+v, %d evaluations", learned, len(trace))
	}
	s := learned[0].Value
	best, bestS := math.Inf(1), 0.0
	for _, g := range []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32} {
		v, ok := tNegLogZ(context.Background(), m, map[string]string{"s": strconv.FormatFloat(g, 'g', -1, 64)})
		if ok && v < best {
			best, bestS = v, g
		}
	}
	got, ok := tNegLogZ(context.Background(), m, map[string]string{"s": strconv.FormatFloat(s, 'g', -1, 64)})
	if !ok || got > best+1e-9 {
		t.Errorf("learned s = %g with −log Z = %g; grid best s = %g with %g", s, got, bestS, best)
	}
	if s < bestS/2 || s > bestS*2 {
		t.Errorf("learned s = %g, grid optimum near %g", s, bestS)
	}
	t.Logf("s: 1 → %g, −log Z %g (grid best %g at %g), %d evaluations", s, got, best, bestS, len(trace))
}
