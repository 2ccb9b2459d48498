package fg

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPredictiveLatent: the Gaussian predictive of a linear projection of a
// conjugate Bayesian regression, read through PredictiveLatent, equals the
// closed form x*ᵀμ, x*ᵀΣx* with Σ = (I/s² + XᵀX/σ²)⁻¹, μ = Σ Xᵀy/σ²
// (1e-10, ep and exact); an unknown name or index is an error.
func TestPredictiveLatent(t *testing.T) {
	src := `model linpred
data X: real[4, 2] = [[1, 0.5], [-0.3, 1], [0.7, -1.2], [2, 0.1]]
data y: real[4]    = [0.9, 0.4, -0.8, 1.7]
data Xs: real[2, 2] = [[0.5, 0.5], [-1, 2]]
latent w: real[2] ~ normal(0, 2)
for i in 0..4 {
  y[i] ~ normal(dot(X[i], w), 0.25)
}
predict f = predictive(w, Xs)
infer ep
infer exact
`
	m, err := LoadBytes("linpred.fg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	X := mat.NewDense(4, 2, []float64{1, 0.5, -0.3, 1, 0.7, -1.2, 2, 0.1})
	y := mat.NewVecDense(4, []float64{0.9, 0.4, -0.8, 1.7})
	var prec mat.SymDense
	prec.SymOuterK(1/0.25, X.T())
	for i := 0; i < 2; i++ {
		prec.SetSym(i, i, prec.At(i, i)+0.5)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&prec) {
		t.Fatal("posterior precision not positive definite")
	}
	var xty, mu mat.VecDense
	xty.MulVec(X.T(), y)
	xty.ScaleVec(1/0.25, &xty)
	if err := ch.SolveVecTo(&mu, &xty); err != nil {
		t.Fatal(err)
	}
	Xs := mat.NewDense(2, 2, []float64{0.5, 0.5, -1, 2})
	for _, label := range []string{"ep", "exact"} {
		r := res.Get(label)
		for i := 0; i < 2; i++ {
			xs := mat.NewVecDense(2, mat.Row(nil, i, Xs))
			var s mat.VecDense
			if err := ch.SolveVecTo(&s, xs); err != nil {
				t.Fatal(err)
			}
			wantM, wantV := mat.Dot(xs, &mu), mat.Dot(xs, &s)
			gotM, gotV, err := r.PredictiveLatent("f", i)
			if err != nil || !(math.Abs(gotM-wantM) <= 1e-10) || !(math.Abs(gotV-wantV) <= 1e-10) {
				t.Errorf("%s: f[%d] = N(%.12g, %.12g) (%v), closed form N(%.12g, %.12g)", label, i, gotM, gotV, err, wantM, wantV)
			}
		}
		if _, _, err := r.PredictiveLatent("g", 0); err == nil || !strings.Contains(err.Error(), "no prediction g") {
			t.Errorf("%s: unknown prediction: %v", label, err)
		}
		if _, _, err := r.PredictiveLatent("f", 2); err == nil || !strings.Contains(err.Error(), "index 2 out of range") {
			t.Errorf("%s: index out of range: %v", label, err)
		}
	}
}
