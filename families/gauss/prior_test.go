package gauss

import (
	"iter"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lin is a Linear over 4 variables whose numbers depend on θ: a block
// N(m(θ), K(θ)) over x0, x1, a conditional x2 ~ N(a(θ) x0 + 0.5 x1 +
// d(θ), q(θ)) written as N(0; x2 − a x0 − 0.5 x1 − d, q), and
// N(y(θ); 2θ x3 + x2 + c(θ), s(θ)), which defines x3 with a learned
// coefficient.
type lin struct{ th float64 }

type form struct {
	vars       []int
	coefs      []float64
	c, y, s    float64
	dcoefs     []float64
	dc, dy, ds float64
}

func (l lin) forms() []form {
	th := l.th
	return []form{
		{vars: []int{2, 0, 1}, coefs: []float64{1, -math.Sin(th), -0.5}, c: -th * th, s: math.Exp(th),
			dcoefs: []float64{0, -math.Cos(th), 0}, dc: -2 * th, ds: math.Exp(th)},
		{vars: []int{3, 2}, coefs: []float64{2 * th, 1}, c: math.Cos(th), y: th / 3, s: 0.3 + th*th,
			dcoefs: []float64{2, 0}, dc: -math.Sin(th), dy: 1.0 / 3, ds: 2 * th},
	}
}

func (l lin) block() ([]float64, *mat.SymDense, []float64, *mat.SymDense) {
	th := l.th
	return []float64{th, 1}, mat.NewSymDense(2, []float64{1 + th*th, th, th, 2}),
		[]float64{1, 0}, mat.NewSymDense(2, []float64{2 * th, 1, 1, 0})
}

func (l lin) NumVars() int      { return 4 }
func (l lin) NumFactors() int   { return 2 }
func (l lin) Gaussian(int) bool { return true }
func (l lin) NumBlocks() int    { return 1 }
func (l lin) VarLists() iter.Seq2[int, []int32] {
	return func(yield func(int, []int32) bool) {
		for k, f := range l.forms() {
			var vs []int32
			for _, v := range f.vars {
				vs = append(vs, int32(v))
			}
			if !yield(k, vs) {
				return
			}
		}
	}
}
func (l lin) Adjacent(v int) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for k, f := range l.forms() {
			for _, u := range f.vars {
				if u == v && !yield(int32(k)) {
					return
				}
			}
		}
	}
}
func (l lin) Form(k int, vars []int, coefs []float64) ([]int, []float64, float64, float64, float64) {
	f := l.forms()[k]
	return append(vars, f.vars...), append(coefs, f.coefs...), f.c, f.y, f.s
}
func (l lin) Block(int) ([]int, []float64, *mat.SymDense) {
	m, K, _, _ := l.block()
	return []int{0, 1}, m, K
}

// tangent is lin's derivative in θ.
type tangent struct{ l lin }

func (t tangent) Form(k int, dcoefs []float64) ([]float64, float64, float64, float64) {
	f := t.l.forms()[k]
	return append(dcoefs, f.dcoefs...), f.dc, f.dy, f.ds
}
func (t tangent) Block(int) ([]float64, *mat.SymDense) {
	_, _, dm, dK := t.l.block()
	return dm, dK
}

// TestMomentsTangents: the propagated derivatives of the prior's mean and
// covariance against central differences of Moments (h = 1e-5), to 1e-8
// absolute on numbers of order 1, and the values equal to Moments'.
func TestMomentsTangents(t *testing.T) {
	th := 0.7
	l := lin{th}
	d, ok := Direct(l)
	if !ok {
		t.Fatal("not directed")
	}
	mu, sigma, tan, _, err := d.MomentsTangents(l, []Tangent{tangent{l}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mu0, sigma0, _, _ := d.Moments(l, nil)
	h := 1e-5
	mp, sp, _, _ := d.Moments(lin{th + h}, nil)
	mm, sm, _, _ := d.Moments(lin{th - h}, nil)
	want := make([]float64, 0, 20)
	for i := range mp {
		want = append(want, (mp[i]-mm[i])/(2*h))
	}
	for i := range sp {
		want = append(want, (sp[i]-sm[i])/(2*h))
	}
	moved := 0
	for i, w := range want {
		if !(math.Abs(tan[0][i]-w) <= 1e-8) {
			t.Errorf("derivative %d: propagated %.12g, central difference %.12g", i, tan[0][i], w)
		}
		if w != 0 {
			moved++
		}
	}
	if moved < 15 {
		t.Errorf("only %d of 20 numbers move", moved)
	}
	for i := range mu {
		if mu[i] != mu0[i] {
			t.Errorf("mean %d: %g, Moments %g", i, mu[i], mu0[i])
		}
	}
	for i := range sigma {
		if sigma[i] != sigma0[i] {
			t.Errorf("covariance %d: %g, Moments %g", i, sigma[i], sigma0[i])
		}
	}
}
