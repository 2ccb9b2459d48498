package fgraph

import (
	"context"
	"math"
	"slices"
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

// TestAffGradFiniteDifference: Result.AffGrad against central differences
// (h = 10⁻⁵·max(1, |θ|)) of the run's log Z in every coefficient and
// constant of every linear-Gaussian factor of an AR(1) chain
// x_t ~ N(a_t x_{t−1} + c_t, q) with Gaussian observations of some steps
// through y = b x + c (unobserved last steps: flat incoming messages) and
// probit sites, to 10⁻⁵ relative, under both families.
func TestAffGradFiniteDifference(t *testing.T) {
	const T = 20
	// theta holds each linear-Gaussian factor's coefficients then constant,
	// in the order affGrads lists them.
	type gfac struct {
		vars []int
		y, v float64
	}
	var facs []gfac
	var theta []float64
	addG := func(vars []int, coefs []float64, c, y, v float64) {
		facs = append(facs, gfac{vars, y, v})
		theta = append(append(theta, coefs...), c)
	}
	addG([]int{0}, []float64{1}, -0.2, 0, 1)
	for t := 1; t < T; t++ {
		addG([]int{t, t - 1}, []float64{1, -0.8 + 0.05*math.Sin(float64(t))}, -0.1*math.Cos(float64(t)), 0, 0.3)
	}
	for t := 0; t < T-3; t += 2 {
		addG([]int{t}, []float64{1.2 - 0.1*float64(t%3)}, 0.3, math.Sin(float64(t)), 0.5)
	}
	build := func(th []float64) *Graph {
		g := NewGraph(T)
		i := 0
		for _, f := range facs {
			n := len(f.vars)
			g.AddGaussian(f.vars, th[i:i+n], th[i+n], f.y, f.v)
			i += n + 1
		}
		for t := 1; t < T-3; t += 3 {
			y := 1.0
			if math.Cos(float64(t)) < 0 {
				y = -1
			}
			g.AddSite(ep.Probit{}, y, []int{t}, []float64{1}, 0.1)
		}
		return g
	}
	for _, fam := range []Family{Full, Factorized} {
		s := Settings{Settings: infer.Settings{Tol: 1e-13, MaxIter: 500}, Family: fam, VarGrad: true}
		run := func(th []float64) *Result {
			res, err := Run(context.Background(), build(th), s)
			if err != nil || res.Status != infer.Converged || !res.HasLogZ {
				t.Fatalf("%v: %v %v", fam, err, res.Status)
			}
			return res
		}
		grad := run(theta).AffGrad
		if len(grad) != len(theta) {
			t.Fatalf("%v: %d gradients for %d coefficients and constants", fam, len(grad), len(theta))
		}
		for k := range theta {
			h := 1e-5 * math.Max(1, math.Abs(theta[k]))
			tp, tm := slices.Clone(theta), slices.Clone(theta)
			tp[k] += h
			tm[k] -= h
			fd := (run(tp).LogZ - run(tm).LogZ) / (2 * h)
			if !(math.Abs(grad[k]-fd) <= 1e-5*math.Max(math.Abs(fd), 1e-2)) {
				t.Errorf("%v: entry %d: AffGrad %.10g, finite difference %.10g", fam, k, grad[k], fd)
			}
		}
	}
}
