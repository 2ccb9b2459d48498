package kernel

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFromSpec checks every fg-language kernel against its formula written
// out by hand on the natural scale, in Gram and cross matrices, including
// white's "same point" semantics (Gram diagonal, zero cross covariance) and
// zero-variance bias/white.
func TestFromSpec(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{0, 0, 1, 2, -1, 0.5})
	Z := mat.NewDense(2, 2, []float64{0, 0, 3, -1}) // Z[0] equals X[0]
	sq := func(x, y []float64) float64 { return (x[0]-y[0])*(x[0]-y[0]) + (x[1]-y[1])*(x[1]-y[1]) }
	cases := []struct {
		kind  Kind
		hyper []float64
		f     func(x, y []float64, same bool) float64
	}{
		{KindSE, []float64{1.5, 2}, func(x, y []float64, _ bool) float64 { return 2 * math.Exp(-sq(x, y)/(2*1.5*1.5)) }},
		{KindLinear, []float64{2}, func(x, y []float64, _ bool) float64 { return (x[0]*y[0] + x[1]*y[1]) / 4 }},
		{KindMatern32, []float64{0.7, 1.3}, func(x, y []float64, _ bool) float64 {
			r := math.Sqrt(3*sq(x, y)) / 0.7
			return 1.3 * (1 + r) * math.Exp(-r)
		}},
		{KindMatern52, []float64{0.7, 1.3}, func(x, y []float64, _ bool) float64 {
			r := math.Sqrt(5*sq(x, y)) / 0.7
			return 1.3 * (1 + r + r*r/3) * math.Exp(-r)
		}},
		{KindARD, []float64{0.5, 2, 3}, func(x, y []float64, _ bool) float64 {
			a, b := (x[0]-y[0])/0.5, (x[1]-y[1])/2
			return 3 * math.Exp(-(a*a+b*b)/2)
		}},
		{KindBias, []float64{0.4}, func(x, y []float64, _ bool) float64 { return 0.4 }},
		{KindBias, []float64{0}, func(x, y []float64, _ bool) float64 { return 0 }},
		{KindWhite, []float64{0.3}, func(x, y []float64, same bool) float64 {
			if same {
				return 0.3
			}
			return 0
		}},
		{KindWhite, []float64{0}, func(x, y []float64, same bool) float64 { return 0 }},
	}
	for _, c := range cases {
		k, err := FromSpec(c.kind, c.hyper)
		if err != nil {
			t.Fatalf("%s%v: %v", c.kind, c.hyper, err)
		}
		K, C := k.Matrix(X), k.Cross(X, Z)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				if want := c.f(X.RawRowView(i), X.RawRowView(j), i == j); !(math.Abs(K.At(i, j)-want) <= 1e-14) {
					t.Errorf("%s%v: K[%d,%d] = %g, formula %g", c.kind, c.hyper, i, j, K.At(i, j), want)
				}
			}
			for j := 0; j < 2; j++ {
				if want := c.f(X.RawRowView(i), Z.RawRowView(j), false); !(math.Abs(C.At(i, j)-want) <= 1e-14) {
					t.Errorf("%s%v: cross[%d,%d] = %g, formula %g", c.kind, c.hyper, i, j, C.At(i, j), want)
				}
			}
		}
	}
	se, _ := FromSpec(KindSE, []float64{1, 1})
	wh, _ := FromSpec(KindWhite, []float64{0.5})
	s, err := FromSpec(KindSum, nil, se, wh)
	if err != nil || !(math.Abs(s.Matrix(X).At(1, 1)-1.5) <= 1e-15) || s.Cross(X, Z).At(0, 0) != 1 {
		t.Errorf("sum: %v", err)
	}
	p, err := FromSpec(KindProd, nil, se, wh)
	if err != nil || p.Matrix(X).At(1, 1) != 0.5 || p.Matrix(X).At(0, 1) != 0 || p.Cross(X, Z).At(0, 0) != 0 {
		t.Errorf("prod: %v", err)
	}
}

func TestFromSpecErrors(t *testing.T) {
	se, _ := FromSpec(KindSE, []float64{1, 1})
	bad := []struct {
		kind  Kind
		hyper []float64
		args  []Kernel
	}{
		{KindSE, []float64{1}, nil},
		{KindSE, []float64{0, 1}, nil},
		{KindLinear, []float64{math.Inf(1)}, nil},
		{KindARD, []float64{1}, nil},
		{KindARD, []float64{1, -1, 1}, nil},
		{KindBias, []float64{-1}, nil},
		{KindWhite, []float64{math.NaN()}, nil},
		{KindSum, nil, []Kernel{se}},
		{KindProd, []float64{1}, []Kernel{se, se}},
		{KindSE, []float64{1, 1}, []Kernel{se}},
		{Kind(99), []float64{1}, nil},
	}
	for _, b := range bad {
		if _, err := FromSpec(b.kind, b.hyper, b.args...); err == nil {
			t.Errorf("FromSpec(%s, %v, %d args): no error", b.kind, b.hyper, len(b.args))
		}
	}
}

// TestKindNames checks that every kind has a name that KindOf maps back to
// it, and that the zero Kind and unknown names are no kernel.
func TestKindNames(t *testing.T) {
	for k := KindSE; k <= KindProd; k++ {
		if got, ok := KindOf(k.String()); !ok || got != k {
			t.Errorf("KindOf(%q) = %v, %v; want %v", k.String(), got, ok, k)
		}
	}
	if _, ok := KindOf("rbf"); ok {
		t.Error(`KindOf("rbf") is a kernel`)
	}
	if _, err := FromSpec(0, []float64{1}); err == nil {
		t.Error("FromSpec(0, ...): no error")
	}
}
