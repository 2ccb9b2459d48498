package gauss

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"
)

func integrate(f func(float64) float64) float64 {
	return quad.Fixed(f, math.Inf(-1), math.Inf(1), 400, nil, 0)
}

func TestUniBasics(t *testing.T) {
	u, ok := NewUni(1.5, 0.25)
	if !ok {
		t.Fatal("NewUni failed")
	}
	if m, _ := u.Mean(); math.Abs(m-1.5) > 1e-15 {
		t.Errorf("mean %g", m)
	}
	if v, _ := u.Var(); math.Abs(v-0.25) > 1e-15 {
		t.Errorf("var %g", v)
	}
	for _, bad := range [][2]float64{{0, 0}, {0, -1}, {math.NaN(), 1}, {0, math.Inf(1)}} {
		if _, ok := NewUni(bad[0], bad[1]); ok {
			t.Errorf("NewUni(%v) accepted", bad)
		}
	}
	imp, ok := NewUniNatural(-0.3, 0.2)
	if !ok || imp.Proper() {
		t.Fatal("improper message not representable")
	}
	if _, ok := imp.Mean(); ok {
		t.Error("improper message has a mean")
	}
	if _, ok := imp.LogNormalizer(); ok {
		t.Error("improper message has a normaliser")
	}
	// A proper belief times an improper site is proper again (EP posterior).
	if q := u.Mul(imp); !q.Proper() {
		t.Error("product with improper site should stay proper here")
	}
	if back := u.Mul(imp).Div(imp); math.Abs(back.Tau-u.Tau) > 1e-15 || math.Abs(back.Nu-u.Nu) > 1e-15 {
		t.Errorf("Div does not undo Mul: %+v", back)
	}
	if p := u.Pow(0.5); p.Tau != 0.5*u.Tau || p.Nu != 0.5*u.Nu {
		t.Errorf("Pow: %+v", p)
	}
	if d := u.Damp(imp, 0.25); math.Abs(d.Tau-(0.75*imp.Tau+0.25*u.Tau)) > 1e-15 {
		t.Errorf("Damp: %+v", d)
	}
}

// TestUniAgainstQuadrature checks the log-normaliser, LogPdf (against
// gonum's distuv.Normal), the product normaliser and KL by quadrature.
func TestUniAgainstQuadrature(t *testing.T) {
	u, _ := NewUni(0.7, 1.3)
	v, _ := NewUni(-0.4, 0.6)
	a, _ := u.LogNormalizer()
	want := math.Log(integrate(func(x float64) float64 { return math.Exp(-0.5*u.Tau*x*x + u.Nu*x) }))
	if math.Abs(a-want) > 1e-12 {
		t.Errorf("LogNormalizer %.15g, quadrature %.15g", a, want)
	}
	n := distuv.Normal{Mu: 0.7, Sigma: math.Sqrt(1.3)}
	if lp, _ := u.LogPdf(0.3); math.Abs(lp-n.LogProb(0.3)) > 1e-14 {
		t.Errorf("LogPdf %g vs distuv %g", lp, n.LogProb(0.3))
	}
	lz, _ := LogProductNormalizer(u, v)
	want = math.Log(integrate(func(x float64) float64 {
		a, _ := u.LogPdf(x)
		b, _ := v.LogPdf(x)
		return math.Exp(a + b)
	}))
	if math.Abs(lz-want) > 1e-12 {
		t.Errorf("LogProductNormalizer %.15g, quadrature %.15g", lz, want)
	}
	kl, _ := KL(u, v)
	want = integrate(func(x float64) float64 {
		a, _ := u.LogPdf(x)
		b, _ := v.LogPdf(x)
		return math.Exp(a) * (a - b)
	})
	if math.Abs(kl-want) > 1e-12 {
		t.Errorf("KL %.15g, quadrature %.15g", kl, want)
	}
}

func TestDiag(t *testing.T) {
	d, ok := NewDiag([]float64{1, -2}, []float64{0.5, 2})
	if !ok {
		t.Fatal("NewDiag failed")
	}
	e, _ := NewDiag([]float64{0, 1}, []float64{1, 1})
	p := d.Mul(e)
	m, v, ok := p.Moments()
	if !ok {
		t.Fatal("product not proper")
	}
	// Univariate products: precision 2+1, mean (1·2 + 0)/3; precision 0.5+1, mean (−1 + 1)/1.5.
	if math.Abs(v[0]-1.0/3) > 1e-15 || math.Abs(m[0]-2.0/3) > 1e-15 || math.Abs(v[1]-1/1.5) > 1e-15 || math.Abs(m[1]) > 1e-15 {
		t.Errorf("moments %v %v", m, v)
	}
	q := p.Div(e)
	for i := range q {
		if math.Abs(q[i].Tau-d[i].Tau) > 1e-15 || math.Abs(q[i].Nu-d[i].Nu) > 1e-15 {
			t.Errorf("Div: %+v vs %+v", q[i], d[i])
		}
	}
	a, _ := d.LogNormalizer()
	a0, _ := d[0].LogNormalizer()
	a1, _ := d[1].LogNormalizer()
	if math.Abs(a-a0-a1) > 1e-15 {
		t.Error("LogNormalizer is not the sum")
	}
	if _, _, ok := d.Div(d.Pow(2)).Moments(); ok {
		t.Error("improper quotient reported moments")
	}
}

func randSPD(d int, seed uint64) *mat.SymDense {
	rng := rand.New(rand.NewPCG(seed, 3))
	A := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	S := mat.NewSymDense(d, nil)
	S.SymOuterK(1, A)
	for i := 0; i < d; i++ {
		S.SetSym(i, i, S.At(i, i)+0.5)
	}
	return S
}

// TestMVAgainstDistmv checks mean, covariance, variances and LogPdf against
// gonum's distmv.Normal (an independent implementation).
func TestMVAgainstDistmv(t *testing.T) {
	mu := []float64{0.3, -1, 2}
	S := randSPD(3, 1)
	g, ok := NewMV(mu, S)
	if !ok {
		t.Fatal("NewMV failed")
	}
	ref, _ := distmv.NewNormal(mu, S, nil)
	m, c, vr := g.Mean(), g.Cov(), g.Var()
	for i := 0; i < 3; i++ {
		if math.Abs(m[i]-mu[i]) > 1e-12 || math.Abs(vr[i]-S.At(i, i)) > 1e-12 {
			t.Errorf("coord %d: mean %g var %g", i, m[i], vr[i])
		}
		for j := 0; j < 3; j++ {
			if math.Abs(c.At(i, j)-S.At(i, j)) > 1e-12 {
				t.Errorf("cov[%d,%d] %g want %g", i, j, c.At(i, j), S.At(i, j))
			}
		}
	}
	x := []float64{1, 0.5, -0.5}
	if lp := g.LogPdf(x); math.Abs(lp-ref.LogProb(x)) > 1e-12 {
		t.Errorf("LogPdf %g, distmv %g", lp, ref.LogProb(x))
	}
	if u := g.Marginal(1); math.Abs(u.Tau-1/S.At(1, 1)) > 1e-12 {
		t.Errorf("marginal %+v", u)
	}
}

// TestMVProduct: log(g·o)(x) − log g(x) − log o(x) must not depend on x
// (the product of densities is proportional to the product Gaussian), and
// division undoes multiplication.
func TestMVProduct(t *testing.T) {
	g, _ := NewMV([]float64{1, 2}, randSPD(2, 2))
	o, _ := NewMV([]float64{-1, 0.5}, randSPD(2, 3))
	p, ok := g.Mul(o)
	if !ok {
		t.Fatal("product failed")
	}
	c0 := p.LogPdf([]float64{0, 0}) - g.LogPdf([]float64{0, 0}) - o.LogPdf([]float64{0, 0})
	for _, x := range [][]float64{{1, 1}, {-2, 3}, {0.5, -1}} {
		if c := p.LogPdf(x) - g.LogPdf(x) - o.LogPdf(x); math.Abs(c-c0) > 1e-11 {
			t.Errorf("x=%v: offset %g vs %g", x, c, c0)
		}
	}
	q, ok := p.Div(o)
	if !ok {
		t.Fatal("quotient failed")
	}
	for i, m := range q.Mean() {
		if math.Abs(m-g.Mean()[i]) > 1e-12 {
			t.Errorf("Div mean %v vs %v", q.Mean(), g.Mean())
		}
	}
	if p2, _ := p.Pow(2); func() bool { _, ok := g.Div(p2); return ok }() {
		t.Error("non-PD quotient accepted")
	}
	h, _ := g.Pow(2)
	if m := h.Mean(); math.Abs(m[0]-g.Mean()[0]) > 1e-12 {
		t.Errorf("Pow keeps the mean: %v vs %v", m, g.Mean())
	}
}

// TestMVOneDim: a 1-D MV agrees with Uni.
func TestMVOneDim(t *testing.T) {
	g, _ := NewMV([]float64{0.4}, mat.NewSymDense(1, []float64{2.5}))
	u, _ := NewUni(0.4, 2.5)
	a, _ := u.LogNormalizer()
	if math.Abs(g.LogNormalizer()-a) > 1e-14 {
		t.Errorf("LogNormalizer %g vs %g", g.LogNormalizer(), a)
	}
}
