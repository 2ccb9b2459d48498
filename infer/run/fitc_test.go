package run

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// TestFITCRegressionClosedForm: GP regression under a FITC prior with an
// explicit jitter, compiled from source. EP with Gaussian sites is exact,
// so the reference is the closed form on Kt = Q + diag(K − Q),
// Q = K_fu (K_uu + 0.01 I)⁻¹ K_uf, formed densely in the test:
// Σ = Kt − Kt C⁻¹ Kt, μ = Kt C⁻¹ y, log Z = log N(y; 0, C), C = Kt + σ² I,
// and GPML's FITC predictive mean Q*f C⁻¹ y and variance
// k** − diag(Q*f C⁻¹ Qf*).
func TestFITCRegressionClosedForm(t *testing.T) {
	src := `
data X: real[6, 1] = [[-2], [-1], [0], [0.5], [2], [3]]
data y: real[6] = [0.3, -0.5, 0.8, 1.1, -0.2, 0.4]
data Z = [[-1.5], [0.5], [2.5]]
data Xs = [[-0.7], [1.3]]
latent f: real[6] ~ gp(se(0.8, 1.5), X, inducing = Z, jitter = 0.01)
for i in 0..6 { y[i] ~ normal(f[i], 0.1) }
predict pf = predictive(f, Xs)
infer ep
infer ep as par { schedule = parallel }
`
	rs, err := Run(context.Background(), compileSrc(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.SE{Lengthscale: 0.8, Var: 1.5}
	X := mat.NewDense(6, 1, []float64{-2, -1, 0, 0.5, 2, 3})
	Z := mat.NewDense(3, 1, []float64{-1.5, 0.5, 2.5})
	Xs := mat.NewDense(2, 1, []float64{-0.7, 1.3})
	y := mat.NewVecDense(6, []float64{0.3, -0.5, 0.8, 1.1, -0.2, 0.4})
	Kuu := k.Matrix(Z)
	for i := 0; i < 3; i++ {
		Kuu.SetSym(i, i, Kuu.At(i, i)+0.01)
	}
	var cu mat.Cholesky
	cu.Factorize(Kuu)
	q := func(A *mat.Dense) *mat.Dense { // A K_uu⁻¹ K_uf
		var S, out mat.Dense
		if err := cu.SolveTo(&S, k.Cross(X, Z).T()); err != nil {
			t.Fatal(err)
		}
		out.Mul(A, &S)
		return &out
	}
	Q, K := q(k.Cross(X, Z)), k.Matrix(X)
	Kt, C := mat.NewSymDense(6, nil), mat.NewSymDense(6, nil)
	for i := 0; i < 6; i++ {
		for j := i; j < 6; j++ {
			v := Q.At(i, j)
			if i == j {
				v = K.At(i, i)
			}
			Kt.SetSym(i, j, v)
			C.SetSym(i, j, v)
		}
		C.SetSym(i, i, C.At(i, i)+0.1)
	}
	var cc mat.Cholesky
	cc.Factorize(C)
	var CiKt, CiY mat.Dense
	cc.SolveTo(&CiKt, Kt)
	cc.SolveTo(&CiY, y)
	var mu, S mat.Dense
	mu.Mul(Kt, &CiY)
	S.Mul(Kt, &CiKt)
	logZ := distmv.NormalLogProb(y.RawVector().Data, make([]float64, 6), &cc)
	Qsf := q(k.Cross(Xs, Z))
	var fmu, CiQ mat.Dense
	fmu.Mul(Qsf, &CiY)
	cc.SolveTo(&CiQ, Qsf.T())
	for _, r := range rs {
		if r.Status != infer.Converged || !r.HasEvidence {
			t.Fatalf("%s: %v %s", r.Label, r.Status, r.Message)
		}
		if !(math.Abs(r.LogEvidence-logZ) <= 1e-9) {
			t.Errorf("%s: log Z %.12g, closed form %.12g", r.Label, r.LogEvidence, logZ)
		}
		v := r.Variables.At(0)
		for i := 0; i < 6; i++ {
			if !(math.Abs(v.Mean[i]-mu.At(i, 0)) <= 1e-9) || !(math.Abs(v.Var[i]-(Kt.At(i, i)-S.At(i, i))) <= 1e-9) {
				t.Errorf("%s: f[%d] = %g ± %g, closed form %g ± %g", r.Label, i, v.Mean[i], v.Var[i], mu.At(i, 0), Kt.At(i, i)-S.At(i, i))
			}
		}
		p := r.Predictions[0]
		for i := 0; i < 2; i++ {
			x := Xs.RawRowView(i)
			wantVar := k.Eval(x, x) - mat.Dot(Qsf.RowView(i), CiQ.ColView(i))
			if !(math.Abs(p.Mean[i]-fmu.At(i, 0)) <= 1e-9) || !(math.Abs(p.Var[i]-wantVar) <= 1e-9) {
				t.Errorf("%s: pf[%d] = %g, %g; closed form %g, %g", r.Label, i, p.Mean[i], p.Var[i], fmu.At(i, 0), wantVar)
			}
		}
	}
}
