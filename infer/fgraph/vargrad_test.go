package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// walkGraph is a random walk x_t ~ N(a x_{t−1} + 0.1, v[t]) (x_0 ~ N(0, v[0]))
// observed through probit labels at even steps and Gaussian observations
// (variance v[T + t/3]) at every third step: linear-Gaussian factors of
// two variables, EP sites with a constant, and variables only one factor
// constrains (the last steps). It returns
// the graph and the number of linear-Gaussian factors.
func walkGraph(v []float64, T int) (*Graph, int) {
	g := NewGraph(T)
	g.AddGaussian([]int{0}, []float64{1}, 0, 0, v[0])
	for t := 1; t < T; t++ {
		g.AddGaussian([]int{t, t - 1}, []float64{1, -0.9}, -0.1, 0, v[t])
	}
	n := T
	for t := 0; t < T-3; t++ {
		if t%2 == 0 {
			y := 1.0
			if math.Sin(float64(t)) < 0 {
				y = -1
			}
			g.AddSite(ep.Probit{}, y, []int{t}, []float64{1}, 0.2)
		}
		if t%3 == 0 {
			g.AddGaussian([]int{t}, []float64{1}, 0, math.Cos(float64(t)), v[T+t/3])
			n++
		}
	}
	return g, n
}

// TestVarGradFiniteDifference: Result.VarGrad against central differences
// (h = 10⁻⁴·σ²) of the run's log Z in each factor's variance, to 10⁻⁵
// relative, under both families (the same fixed point on a forest).
func TestVarGradFiniteDifference(t *testing.T) {
	const T = 30
	v := make([]float64, 2*T)
	for i := range v {
		v[i] = 0.2 + 0.3*math.Abs(math.Sin(float64(3*i)))
	}
	for _, fam := range []Family{Full, Factorized} {
		s := Settings{Settings: infer.Settings{Tol: 1e-13, MaxIter: 500}, Family: fam}
		logZ := func(v []float64) (float64, []float64) {
			g, _ := walkGraph(v, T)
			s := s
			s.VarGrad = true
			res, err := Run(context.Background(), g, s)
			if err != nil || res.Status != infer.Converged || !res.HasLogZ {
				t.Fatalf("%v: %v %v", fam, err, res.Status)
			}
			return res.LogZ, res.VarGrad
		}
		_, grad := logZ(v)
		if _, n := walkGraph(v, T); len(grad) != n {
			t.Fatalf("%v: %d gradients for %d linear-Gaussian factors", fam, len(grad), n)
		}
		zero := 0
		for k := range grad {
			// Factor k's variance is v[k]: the chain's T, then the observations'.
			h := 1e-4 * v[k]
			vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
			vp[k] += h
			vm[k] -= h
			lp, _ := logZ(vp)
			lm, _ := logZ(vm)
			fd := (lp - lm) / (2 * h)
			if !(math.Abs(grad[k]-fd) <= 1e-5*math.Max(math.Abs(fd), 1e-3)) {
				t.Errorf("%v: factor %d: VarGrad %.10g, finite difference %.10g", fam, k, grad[k], fd)
			}
			if grad[k] == 0 {
				zero++
			}
		}
		if zero == 0 {
			t.Errorf("%v: no factor with a flat incoming message was met", fam)
		}
	}
}

// TestSiteCavityParamGrad: the evidence's derivative in the eps of step
// sites on a chain, Σ_i ∂ log Ẑ_i/∂ε at Result's cavities (CavMean,
// CavVar), against central differences (h = 10⁻⁵) of the run's log Z, to
// 10⁻⁵ relative.
func TestSiteCavityParamGrad(t *testing.T) {
	const T = 25
	run := func(eps float64) *Result {
		g := NewGraph(T)
		g.AddGaussian([]int{0}, []float64{1}, 0, 0, 1)
		for t := 1; t < T; t++ {
			g.AddGaussian([]int{t, t - 1}, []float64{1, -1}, 0, 0, 0.3)
		}
		for t := 0; t < T; t++ {
			y := 1.0
			if math.Cos(0.7*float64(t)) < 0 {
				y = -1
			}
			g.AddSite(ep.Step{Eps: eps}, y, []int{t}, []float64{1}, 0.1)
		}
		res, err := Run(context.Background(), g, Settings{Settings: infer.Settings{Tol: 1e-13, MaxIter: 500}, VarGrad: true})
		if err != nil || res.Status != infer.Converged || !res.HasLogZ || len(res.CavMean) != T {
			t.Fatalf("eps %g: %v %v, %d cavities", eps, err, res.Status, len(res.CavMean))
		}
		return res
	}
	const eps, h = 0.1, 1e-5
	res := run(eps)
	var grad float64
	for i := range res.CavMean {
		y := 1.0
		if math.Cos(0.7*float64(i)) < 0 {
			y = -1
		}
		grad += ep.Step{Eps: eps}.ParamGrad(y, res.CavMean[i], res.CavVar[i])
	}
	fd := (run(eps+h).LogZ - run(eps-h).LogZ) / (2 * h)
	if !(math.Abs(grad-fd) <= 1e-5*math.Abs(fd)) {
		t.Errorf("∂ log Z/∂ε: at the cavities %.10g, finite difference %.10g", grad, fd)
	}
}
