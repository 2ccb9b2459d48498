package present

import (
	"math"
	"time"

	"github.com/fg-infer/fg/infer"
)

// fixture returns hand-made results covering every feature the presenters
// show: a gold standard, error columns, relaxation, predictions, a discrete
// variable, a sampler's diagnostics, learned hyperparameters and a failed
// run with non-finite numbers.
func fixture() []*infer.Result {
	exact := &infer.Result{Method: "exact", Label: "exact", Status: infer.Done,
		Stats: infer.Stats{Runtime: 1500 * time.Millisecond}, LogEvidence: -3.25, HasEvidence: true,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{0.5, -1.25}, Var: []float64{0.04, 0.25}}}...)}
	ep := &infer.Result{Method: "ep", Label: "ep", Divergence: infer.KL{}, Status: infer.Converged,
		Options: map[string]string{}, Stats: infer.Stats{Iterations: 7, Updates: 35, Runtime: 2 * time.Millisecond},
		LogEvidence: -3.5, HasEvidence: true, Trace: []float64{1, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 0},
		Variables:   infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{0.75, -1}, Var: []float64{0.09, 0.16}}}...),
		Predictions: []infer.Prediction{{Name: "p", Shape: []int{3}, Mean: []float64{1, 0, -1}, Var: []float64{1, 1, 1}, Prob: []float64{0.8, 0.5, 0.2}}},
		Errors:      &infer.Errors{Reference: "exact", MeanMAE: 0.25, VarMAE: 0.06, LogZAbs: 0.25, HasMean: true, HasVar: true, HasLogZ: true}}
	rep := &infer.Result{Method: "ep", Label: "ep_relaxed_kl", Divergence: infer.RelaxedKL{C: 20}, Status: infer.Converged,
		Options: map[string]string{"divergence": "relaxed_kl(c = 20)"}, Stats: infer.Stats{Iterations: 9, Runtime: 3 * time.Millisecond},
		Trace:      []float64{2, 0.5, 0.01},
		Variables:  infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{0.5, -1.2}, Var: []float64{0.05, 0.2}}}...),
		Relaxation: []infer.Relaxation{{Factor: "step(y[4])", Pos: "toy.fg:9:3", B: 1.9}, {Factor: "step(y[1])", Pos: "toy.fg:9:3", B: 0.01}},
		Learned:    []infer.Learned{{Name: "eps", Initial: 0.2, Value: 0.125}},
		Errors:     &infer.Errors{Reference: "exact", MeanMAE: 0.025, HasMean: true}}
	bad := &infer.Result{Method: "ep", Label: "ep_alpha", Divergence: infer.Alpha{A: 0.5}, Status: infer.Diverged,
		Stats: infer.Stats{Iterations: 3, Skipped: 2}, Trace: []float64{1, math.Inf(1), math.NaN()},
		LogEvidence: math.NaN(), HasEvidence: true, Message: "cavity variance non-positive at step(y[2])",
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{math.NaN(), 1}, Var: []float64{-1, math.Inf(1)}}}...)}
	mcmc := &infer.Result{Method: "mcmc", Label: "mcmc", Status: infer.Done, Stats: infer.Stats{Runtime: 4 * time.Second},
		Variables: infer.NewVariables([]infer.Variable{
			{Name: "x", Shape: []int{12}, Discrete: true, States: []string{"-1", "+1"}, Probs: spinProbs(12),
				ProbsSE: spinSE(12), ESS: fill(12, 900), RHat: fill(12, 1.001)},
			{Name: "c", Discrete: true, States: []string{"0", "1", "2"}, Probs: [][]float64{{0.2, 0.3, 0.5}}},
		}...)}
	return []*infer.Result{exact, ep, rep, bad, mcmc}
}

func spinProbs(n int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		p := float64(i+1) / float64(n+1)
		out[i] = []float64{1 - p, p}
	}
	return out
}

func spinSE(n int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = []float64{0.01, 0.01}
	}
	return out
}

func fill(n int, x float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}
