package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randX(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	return X
}

func all() []Kernel {
	return []Kernel{
		Linear{0.7}, Bias{1.3}, White{0.2}, SE{0.8, 1.7}, ARD{[]float64{0.5, 1.5, 2}, 0.9},
		Matern32{1.1, 0.6}, Matern52{0.9, 2.2},
		Sum{SE{1, 1}, Linear{0.3}, White{0.1}}, Prod{SE{1.2, 0.5}, Matern32{0.7, 1.5}},
		Prod{Sum{Bias{0.5}, Linear{1}}, SE{2, 1}},
	}
}

// TestDirectFormulas checks Eval against the kernels' textbook formulas,
// written out here independently of the implementation.
func TestDirectFormulas(t *testing.T) {
	x := []float64{0.3, -1.2, 2.0}
	y := []float64{1.1, 0.4, 1.5}
	r2 := 0.8*0.8 + 1.6*1.6 + 0.5*0.5
	r := math.Sqrt(r2)
	xy := 0.3*1.1 - 1.2*0.4 + 2.0*1.5
	cases := []struct {
		k    Kernel
		want float64
	}{
		{Linear{2}, 2 * xy},
		{Bias{3}, 3},
		{White{3}, 0},
		{SE{1.5, 2}, 2 * math.Exp(-r2/(2*1.5*1.5))},
		{ARD{[]float64{1, 2, 0.5}, 1.5}, 1.5 * math.Exp(-0.5*(0.64/1+2.56/4+0.25/(0.5*0.5)))},
		{Matern32{1.3, 0.7}, 0.7 * (1 + math.Sqrt(3)*r/1.3) * math.Exp(-math.Sqrt(3)*r/1.3)},
		{Matern52{1.3, 0.7}, 0.7 * (1 + math.Sqrt(5)*r/1.3 + 5*r2/(3*1.3*1.3)) * math.Exp(-math.Sqrt(5)*r/1.3)},
		{Sum{SE{1.5, 2}, Linear{2}}, 2*math.Exp(-r2/(2*1.5*1.5)) + 2*xy},
		{Prod{SE{1.5, 2}, Linear{2}}, 2 * math.Exp(-r2/(2*1.5*1.5)) * 2 * xy},
	}
	for _, c := range cases {
		if got := c.k.Eval(x, y); !(math.Abs(got-c.want) <= 1e-14*math.Max(1, math.Abs(c.want))) {
			t.Errorf("%v: Eval = %.16g, want %.16g", c.k, got, c.want)
		}
	}
	if got := (White{3}).Eval(x, x); got != 3 {
		t.Errorf("White on identical inputs = %g", got)
	}
}

// TestGPMLMapping checks FromGPML against GPML's documented formulas
// covSEiso: sf² exp(−r²/(2 ell²)), covLINiso: xᵀx'/ell².
func TestGPMLMapping(t *testing.T) {
	x, y := []float64{1, 2}, []float64{-0.5, 0.25}
	se, err := FromGPML("covSEiso", []float64{-1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	ell, sf := math.Exp(-1.0), math.Exp(0.5)
	want := sf * sf * math.Exp(-(1.5*1.5+1.75*1.75)/(2*ell*ell))
	if got := se.Eval(x, y); !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("covSEiso: %g want %g", got, want)
	}
	lin, _ := FromGPML("covLINiso", []float64{0.7})
	want = (1*-0.5 + 2*0.25) / math.Exp(1.4)
	if got := lin.Eval(x, y); !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("covLINiso: %g want %g", got, want)
	}
	if _, err := FromGPML("covPeriodic", []float64{1}); err == nil {
		t.Error("unknown covariance accepted")
	}
}

// TestMatrixCross checks Matrix and Cross against Eval entry by entry.
func TestMatrixCross(t *testing.T) {
	X, Z := randX(7, 3, 1), randX(4, 3, 2)
	for _, k := range all() {
		K, C := k.Matrix(X), k.Cross(X, Z)
		_, isWhite := k.(White)
		for i := 0; i < 7; i++ {
			for j := 0; j < 7; j++ {
				want := k.Eval(X.RawRowView(i), X.RawRowView(j))
				if !(math.Abs(K.At(i, j)-want) <= 1e-13) {
					t.Errorf("%v: K[%d,%d] = %g, want %g", k, i, j, K.At(i, j), want)
				}
			}
			for j := 0; j < 4 && !isWhite; j++ {
				want := k.Eval(X.RawRowView(i), Z.RawRowView(j))
				if _, s := k.(Sum); s {
					want -= (White{0.1}).Eval(X.RawRowView(i), Z.RawRowView(j))
				}
				if !(math.Abs(C.At(i, j)-want) <= 1e-13) {
					t.Errorf("%v: C[%d,%d] = %g, want %g", k, i, j, C.At(i, j), want)
				}
			}
		}
		var ch mat.Cholesky
		J := mat.NewSymDense(7, nil)
		J.CopySym(K)
		for i := 0; i < 7; i++ {
			J.SetSym(i, i, J.At(i, i)+1e-9)
		}
		if !ch.Factorize(J) {
			t.Errorf("%v: Gram matrix not PSD", k)
		}
	}
}

// TestGradFiniteDifference compares Grad with central differences of Matrix
// in the log hyperparameters (step 1e-5, tolerance 1e-7 absolute).
func TestGradFiniteDifference(t *testing.T) {
	X := randX(6, 3, 3)
	for _, k := range all() {
		h := k.Hyper()
		if len(h) != len(k.HyperNames()) {
			t.Fatalf("%v: %d hyper, %d names", k, len(h), len(k.HyperNames()))
		}
		G := k.Grad(X)
		if len(G) != len(h) {
			t.Fatalf("%v: %d gradients for %d hyper", k, len(G), len(h))
		}
		for j := range h {
			const step = 1e-5
			hp := append([]float64(nil), h...)
			hm := append([]float64(nil), h...)
			hp[j] += step
			hm[j] -= step
			kp, err := k.WithHyper(hp)
			if err != nil {
				t.Fatal(err)
			}
			km, _ := k.WithHyper(hm)
			Kp, Km := kp.Matrix(X), km.Matrix(X)
			for a := 0; a < 6; a++ {
				for b := 0; b < 6; b++ {
					fd := (Kp.At(a, b) - Km.At(a, b)) / (2 * step)
					if !(math.Abs(fd-G[j].At(a, b)) <= 1e-7*math.Max(1, math.Abs(fd))) {
						t.Errorf("%v: dK/d%s[%d,%d] = %g, fd %g", k, k.HyperNames()[j], a, b, G[j].At(a, b), fd)
					}
				}
			}
		}
	}
}

// TestMatrixGradAsSeparateCalls: MatrixGrad returns what Matrix and Grad
// return, bit for bit, for every kernel (pointwise, linear, white, sums and
// products), and a product's Grad is unchanged by being computed with its
// Gram matrix.
func TestMatrixGradAsSeparateCalls(t *testing.T) {
	X := randX(9, 3, 4)
	for _, k := range all() {
		K, G := MatrixGrad(k, X)
		if !mat.Equal(K, k.Matrix(X)) {
			t.Errorf("%v: MatrixGrad's Gram matrix differs from Matrix", k)
		}
		want := k.Grad(X)
		if len(G) != len(want) {
			t.Fatalf("%v: %d gradients, Grad has %d", k, len(G), len(want))
		}
		for j := range G {
			if !mat.Equal(G[j], want[j]) {
				t.Errorf("%v: MatrixGrad's ∂K/∂%s differs from Grad", k, k.HyperNames()[j])
			}
		}
	}
}

func TestWithHyperRoundTrip(t *testing.T) {
	for _, k := range all() {
		k2, err := k.WithHyper(k.Hyper())
		if err != nil {
			t.Fatal(err)
		}
		x, y := []float64{0.1, 0.2, 0.3}, []float64{-0.3, 0.5, 0.9}
		if a, b := k.Eval(x, y), k2.Eval(x, y); !(math.Abs(a-b) <= 1e-14*math.Max(1, math.Abs(a))) {
			t.Errorf("%v: round trip changed value %g → %g", k, a, b)
		}
		if _, err := k.WithHyper(append(k.Hyper(), 1)); err == nil {
			t.Errorf("%v: wrong length accepted", k)
		}
	}
	if _, ok := NewSE(-1, 1); ok {
		t.Error("NewSE accepted negative lengthscale")
	}
	if _, ok := NewARD([]float64{1, 0}, 1); ok {
		t.Error("NewARD accepted zero lengthscale")
	}
}
