package main

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// site is one likelihood term on t = aᵀw with a Gaussian prior N(m, S) on w.
// Its tilted distribution has closed-form moments (below), which is what the
// gold standards are measured against.
type site struct {
	name string
	m    []float64
	s    *mat.SymDense
	a    []float64
	eps  float64 // step noise; < 0 selects probit
}

func newSite(name string, d int, eps float64) site {
	m := []float64{0.3, -0.2, 0.5}[:d]
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			s.SetSym(i, j, 0.4*math.Pow(0.5, math.Abs(float64(i-j))))
		}
		s.SetSym(i, i, 1+0.3*float64(i))
	}
	return site{name: name, m: m, s: s, a: []float64{0.8, -1.3, 0.45}[:d], eps: eps}
}

// narrowSite is a probit site scaled by 8 with a prior mean far on its
// negative side: the posterior is a thin sliver of the prior, where the
// prior as importance proposal wastes most samples.
func narrowSite() site {
	st := newSite("probit(8·) far d=2", 2, -1)
	st.m = []float64{-1.5, 1.2}
	st.a = []float64{8 * 0.8, 8 * -1.3}
	return st
}

func (st site) loglik(w []float64) float64 {
	t := 0.0
	for i := range w {
		t += st.a[i] * w[i]
	}
	if st.eps < 0 {
		return math.Log(distuv.UnitNormal.CDF(t))
	}
	if t > 0 {
		return math.Log(1 - st.eps)
	}
	return math.Log(st.eps)
}

// exact returns log Z and the posterior mean and variances in closed form:
// with t ~ N(μ, v) under the prior and tilted moments (Z, E t, Var t),
// m' = m + S a (E t − μ)/v and S' = S − S a aᵀ S (v − Var t)/v².
func (st site) exact() (logZ float64, mean, vars []float64) {
	d := len(st.m)
	a := mat.NewVecDense(d, st.a)
	var sa mat.VecDense
	sa.MulVec(st.s, a)
	mu := mat.Dot(a, mat.NewVecDense(d, st.m))
	v := mat.Dot(a, &sa)
	z, et, vt := tilted(mu, v, st.eps)
	mean, vars = make([]float64, d), make([]float64, d)
	for i := range mean {
		mean[i] = st.m[i] + sa.AtVec(i)*(et-mu)/v
		vars[i] = st.s.At(i, i) - sa.AtVec(i)*sa.AtVec(i)*(v-vt)/(v*v)
	}
	return math.Log(z), mean, vars
}

// tilted is (Z, E t, Var t) of N(t; μ, v)·l(t): step l = ε + (1−2ε)Θ(t) or
// probit l = Φ(t) (Rasmussen & Williams eq. 3.58).
func tilted(mu, v, eps float64) (z, et, vt float64) {
	n := distuv.UnitNormal
	if eps < 0 {
		u := mu / math.Sqrt(1+v)
		z = n.CDF(u)
		r := n.Prob(u) / z
		et = mu + v*r/math.Sqrt(1+v)
		vt = v - v*v*r*(u+r)/(1+v)
		return z, et, vt
	}
	u := mu / math.Sqrt(v)
	z = eps + (1-2*eps)*n.CDF(u)
	r := (1 - 2*eps) * n.Prob(u) / z
	et = mu + math.Sqrt(v)*r
	et2 := mu*mu + v + mu*math.Sqrt(v)*r
	return z, et, et2 - et*et
}
