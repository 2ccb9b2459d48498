package main

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/fg-infer/fg/stdlib/loss"
)

// optimum is a cost minimiser found offline.
type optimum struct {
	X      []float64
	F      float64
	Method string
}

// minimiseLogistic minimises the total logistic cost by BFGS with the
// analytic gradient (roche §3.3 used Newton; both converge to the unique
// minimiser when it exists).
//
// With prior > 0 it minimises the negative log posterior instead,
// cost(θ) + ‖θ‖²/(2·prior), whose minimiser is the MAP point of the
// Boltzmann posterior that FF-EP approximates.
func minimiseLogistic(ds *dataset, prior float64) optimum {
	b := &loss.Batch{X: ds.X, Y: ds.Y, Beta: 1, Loss: loss.Logistic{}}
	d := len(ds.X[0])
	g, h := make([]float64, d), make([]float64, d)
	p := optimize.Problem{
		Func: penalise(b.Cost, prior),
		Grad: func(grad, x []float64) {
			b.Derivs(x, g, h)
			for i := range grad {
				grad[i] = -g[i] // Derivs is for log f = −cost
				if prior > 0 {
					grad[i] += x[i] / prior
				}
			}
		},
	}
	res, err := optimize.Minimize(p, make([]float64, d), &optimize.Settings{
		GradientThreshold: 1e-9, MajorIterations: 20000,
	}, &optimize.BFGS{})
	if err != nil && res == nil {
		return optimum{X: make([]float64, d), F: b.Cost(make([]float64, d)), Method: "bfgs failed: " + err.Error()}
	}
	grad := make([]float64, d)
	p.Grad(grad, res.X)
	var gn float64
	for _, v := range grad {
		gn = max(gn, math.Abs(v))
	}
	return optimum{X: res.X, F: res.F, Method: fmt.Sprintf("bfgs (%v, |grad|∞ = %.1e)", res.Status, gn)}
}

// minimiseDerivativeFree minimises the cost of l by Nelder–Mead from each
// start (roche used Powell's method from the logistic solution), restarting
// from the best point until a restart gains less than 1e-6 relatively.
// prior > 0 adds ‖θ‖²/(2·prior) as in minimiseLogistic.
func minimiseDerivativeFree(ds *dataset, l loss.Loss, prior float64, starts ...[]float64) optimum {
	f := penalise(ds.cost(l), prior)
	best := optimum{F: f(starts[0]), X: append([]float64(nil), starts[0]...), Method: "start"}
	for si, x0 := range starts {
		x, fx := append([]float64(nil), x0...), f(x0)
		for restart := 0; restart < 8; restart++ {
			res, err := optimize.Minimize(optimize.Problem{Func: f}, x, &optimize.Settings{
				FuncEvaluations: 40000,
				Converger:       &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-10, Iterations: 2000},
			}, &optimize.NelderMead{})
			if res == nil || err != nil && res.F >= fx {
				break
			}
			gain := fx - res.F
			x, fx = res.X, res.F
			if gain <= 1e-6*max(1, fx) {
				break
			}
		}
		if fx < best.F {
			best = optimum{X: x, F: fx, Method: "nelder-mead from start " + string(rune('A'+si))}
		}
	}
	return best
}

// penalise returns f(θ) + ‖θ‖²/(2·prior), or f for prior ≤ 0.
func penalise(f func([]float64) float64, prior float64) func([]float64) float64 {
	if prior <= 0 {
		return f
	}
	return func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v * v
		}
		return f(x) + s/(2*prior)
	}
}
