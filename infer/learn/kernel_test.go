package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/stdlib/kernel"
)

func randInputs(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	return X
}

func testKernels() []Kernel {
	se := Kernel{Kind: kernel.KindSE, Hyper: []float64{0.7, 1.8}}
	return []Kernel{
		se,
		{Kind: kernel.KindMatern32, Hyper: []float64{1.3, 0.6}},
		{Kind: kernel.KindMatern52, Hyper: []float64{0.9, 2.1}},
		{Kind: kernel.KindLinear, Hyper: []float64{1.7}},
		{Kind: kernel.KindARD, Hyper: []float64{0.5, 2, 1.2, 0.8}},
		{Kind: kernel.KindBias, Hyper: []float64{0.4}},
		{Kind: kernel.KindBias, Hyper: []float64{0}},
		{Kind: kernel.KindWhite, Hyper: []float64{0.3}},
		{Kind: kernel.KindSum, Args: []Kernel{se, {Kind: kernel.KindWhite, Hyper: []float64{0.1}}}},
		{Kind: kernel.KindProd, Args: []Kernel{{Kind: kernel.KindLinear, Hyper: []float64{0.5}}, se, {Kind: kernel.KindBias, Hyper: []float64{2}}}},
	}
}

// direct evaluates the language's kernel formulas entry by entry.
func direct(k Kernel, x, y []float64, same bool) float64 {
	sq := func(ls []float64) float64 {
		s := 0.0
		for i := range x {
			d := x[i] - y[i]
			if ls != nil {
				d /= ls[i]
			}
			s += d * d
		}
		return s
	}
	h := k.Hyper
	switch k.Kind {
	case kernel.KindSE:
		return h[1] * math.Exp(-sq(nil)/(2*h[0]*h[0]))
	case kernel.KindMatern32:
		r := math.Sqrt(3*sq(nil)) / h[0]
		return h[1] * (1 + r) * math.Exp(-r)
	case kernel.KindMatern52:
		r := math.Sqrt(5*sq(nil)) / h[0]
		return h[1] * (1 + r + r*r/3) * math.Exp(-r)
	case kernel.KindLinear:
		s := 0.0
		for i := range x {
			s += x[i] * y[i]
		}
		return s / (h[0] * h[0])
	case kernel.KindARD:
		return h[len(h)-1] * math.Exp(-sq(h[:len(h)-1])/2)
	case kernel.KindBias:
		return h[0]
	case kernel.KindWhite:
		if same {
			return h[0]
		}
		return 0
	case kernel.KindSum, kernel.KindProd:
		v := direct(k.Args[0], x, y, same)
		for _, a := range k.Args[1:] {
			if k.Kind == kernel.KindSum {
				v += direct(a, x, y, same)
			} else {
				v *= direct(a, x, y, same)
			}
		}
		return v
	}
	return math.NaN()
}

// TestKernelGram: Gram matches the language's formulas written out here,
// and GramGrads returns Gram's matrix bit for bit.
func TestKernelGram(t *testing.T) {
	X := randInputs(9, 3, 1)
	for _, k := range testKernels() {
		K, err := k.Gram(X)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if K2, _, err := k.GramGrads(X); err != nil || !mat.Equal(K, K2) {
			t.Errorf("%s: GramGrads' Gram matrix differs from Gram (err %v)", k.Kind, err)
		}
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				want := direct(k, X.RawRowView(i), X.RawRowView(j), i == j)
				if !(math.Abs(K.At(i, j)-want) <= 1e-12*math.Max(1, math.Abs(want))) {
					t.Fatalf("%s: K[%d,%d] = %g, formula %g", k.Kind, i, j, K.At(i, j), want)
				}
			}
		}
	}
}

// TestKernelGradsFiniteDifference: ∂K/∂θ on the natural scale against
// central differences of the formulas, to 1e-7 relative.
func TestKernelGradsFiniteDifference(t *testing.T) {
	X := randInputs(7, 3, 2)
	for _, k := range testKernels() {
		g, err := k.Grads(X)
		if err != nil {
			t.Fatal(err)
		}
		flat := k.Flat()
		if len(g) != len(flat) || k.NumHyper() != len(flat) {
			t.Fatalf("%s: %d grads for %d hyperparameters", k.Kind, len(g), len(flat))
		}
		for j := range flat {
			h := 1e-6 * math.Max(1, flat[j])
			kp, km := withFlat(k, j, flat[j]+h), withFlat(k, j, flat[j]-h)
			for a := 0; a < 7; a++ {
				for b := 0; b < 7; b++ {
					xa, xb := X.RawRowView(a), X.RawRowView(b)
					fd := (direct(kp, xa, xb, a == b) - direct(km, xa, xb, a == b)) / (2 * h)
					if !(math.Abs(g[j].At(a, b)-fd) <= 1e-7*math.Max(1, math.Abs(fd))) {
						t.Fatalf("%s: ∂K[%d,%d]/∂θ%d = %g, fd %g", k.Kind, a, b, j, g[j].At(a, b), fd)
					}
				}
			}
		}
	}
}

// withFlat returns k with its j-th flattened hyperparameter set to v.
func withFlat(k Kernel, j int, v float64) Kernel {
	if k.Kind != kernel.KindSum && k.Kind != kernel.KindProd {
		h := append([]float64(nil), k.Hyper...)
		h[j] = v
		return Kernel{Kind: k.Kind, Hyper: h}
	}
	out := Kernel{Kind: k.Kind}
	for _, a := range k.Args {
		n := a.NumHyper()
		if j >= 0 && j < n {
			a = withFlat(a, j, v)
		}
		j -= n
		out.Args = append(out.Args, a)
	}
	return out
}

func TestKernelErrors(t *testing.T) {
	X := randInputs(3, 2, 3)
	for _, k := range []Kernel{
		{Kind: kernel.KindSE, Hyper: []float64{-1, 1}},
		{Kind: kernel.KindSE, Hyper: []float64{1}},
		{Kind: kernel.Kind(99), Hyper: []float64{1}},
		{Kind: kernel.KindSum, Args: []Kernel{{Kind: kernel.KindBias, Hyper: []float64{1}}}},
		{Kind: kernel.KindARD, Hyper: []float64{1}},
	} {
		if _, err := k.Gram(X); err == nil {
			t.Errorf("%+v: no error from Gram", k)
		}
		if _, err := k.Grads(X); err == nil {
			t.Errorf("%+v: no error from Grads", k)
		}
	}
}
