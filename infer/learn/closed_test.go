package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// gaussEvidence is the closed-form evidence of y ~ N(mean, C) with its
// derivative ½ tr((α αᵀ − C⁻¹) dC) for each dC (Rasmussen & Williams eq. 5.9),
// computed with a Cholesky factor of C.
func gaussEvidence(t *testing.T, y, mean []float64, C *mat.SymDense, dC []*mat.SymDense) (float64, []float64) {
	var ch mat.Cholesky
	if !ch.Factorize(C) {
		t.Fatal("C not positive definite")
	}
	n := len(y)
	r := mat.NewVecDense(n, nil)
	for i := range y {
		r.SetVec(i, y[i]-mean[i])
	}
	var a mat.VecDense
	if err := ch.SolveVecTo(&a, r); err != nil {
		t.Fatal(err)
	}
	lz := -0.5*mat.Dot(r, &a) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	var Ci mat.SymDense
	if err := ch.InverseTo(&Ci); err != nil { // test-only reference computation
		t.Fatal(err)
	}
	g := make([]float64, len(dC))
	for k, d := range dC {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				g[k] += 0.5 * (a.AtVec(i)*a.AtVec(j) - Ci.At(i, j)) * d.At(i, j)
			}
		}
	}
	return lz, g
}

// TestGradientGPRegression: with Gaussian sites EP is exact, so log Z_EP and
// its gradient in (ℓ, σ_f², σ_n²) must equal the closed-form GP evidence.
func TestGradientGPRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 25
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		y[i] = math.Sin(X.At(i, 0)) + 0.3*rng.NormFloat64()
	}
	ell, sf2, sn2 := 0.8, 1.3, 0.2
	k := Kernel{Kind: kernel.KindSE, Hyper: []float64{ell, sf2}}
	K, _ := k.Gram(X)
	dK, _ := k.Grads(X)
	b := &Block{Problem: &ep.Problem{Cov: K}, DCov: []*mat.SymDense{dK[0], dK[1], nil}, DLik: [][]float64{nil, nil, ones(n)}}
	for i := range y {
		b.Problem.Sites = append(b.Problem.Sites, ep.Site{Lik: ep.Gaussian{Var: sn2}, Y: y[i], Index: i})
	}
	lz, g := evidence(t, func([]float64) ([]*Block, error) { return []*Block{b}, nil }, []float64{0, 0, 0})
	C := mat.NewSymDense(n, nil)
	C.CopySym(K)
	I := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		C.SetSym(i, i, C.At(i, i)+sn2)
		I.SetSym(i, i, 1)
	}
	want, wg := gaussEvidence(t, y, make([]float64, n), C, []*mat.SymDense{dK[0], dK[1], I})
	if !(math.Abs(lz-want) <= 1e-9) {
		t.Errorf("log Z_EP %.12f, closed form %.12f", lz, want)
	}
	for i := range g {
		if relErr(g[i], wg[i]) > 1e-8 {
			t.Errorf("grad[%d] = %.12g, closed form %.12g", i, g[i], wg[i])
		}
	}
}

// TestGradientLinearModel exercises the projected path (a_i = x_i, A ≠ I)
// with a prior mean: w ~ N(m0, s I), y_i ~ N(x_iᵀw, σ²); the evidence is
// N(y; X m0, s X Xᵀ + σ² I), differentiated in s and σ².
func TestGradientLinearModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 30, 4
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	m0 := []float64{0.5, -0.2, 0, 1}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = X.At(i, 0) - X.At(i, 2) + 0.5*rng.NormFloat64()
	}
	s, sn2 := 2.0, 0.3
	K := mat.NewSymDense(d, nil)
	I := mat.NewSymDense(d, nil)
	for j := 0; j < d; j++ {
		K.SetSym(j, j, s)
		I.SetSym(j, j, 1)
	}
	b := &Block{Problem: &ep.Problem{Mean: m0, Cov: K}, DCov: []*mat.SymDense{I, nil}, DLik: [][]float64{nil, ones(n)}}
	for i := range y {
		b.Problem.Sites = append(b.Problem.Sites, ep.Site{Lik: ep.Gaussian{Var: sn2}, Y: y[i], Proj: X.RawRowView(i)})
	}
	lz, g := evidence(t, func([]float64) ([]*Block, error) { return []*Block{b}, nil }, []float64{0, 0})
	XXt := mat.NewSymDense(n, nil)
	XXt.SymOuterK(1, X)
	C := mat.NewSymDense(n, nil)
	C.ScaleSym(s, XXt)
	In := mat.NewSymDense(n, nil)
	mean := make([]float64, n)
	for i := 0; i < n; i++ {
		C.SetSym(i, i, C.At(i, i)+sn2)
		In.SetSym(i, i, 1)
		mean[i] = mat.Dot(X.RowView(i), mat.NewVecDense(d, m0))
	}
	want, wg := gaussEvidence(t, y, mean, C, []*mat.SymDense{XXt, In})
	if !(math.Abs(lz-want) <= 1e-9) {
		t.Errorf("log Z_EP %.12f, closed form %.12f", lz, want)
	}
	for i := range g {
		if relErr(g[i], wg[i]) > 1e-8 {
			t.Errorf("grad[%d] = %.12g, closed form %.12g", i, g[i], wg[i])
		}
	}
}
