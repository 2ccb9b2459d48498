package present

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// bigResults: three results with a 5000-element latent and 5000
// predictions (the size of the spam data set).
func bigResults() []*infer.Result {
	rng := rand.New(rand.NewPCG(1, 2))
	var rs []*infer.Result
	for _, l := range []string{"ep", "ep_alpha", "mcmc"} {
		n := 5000
		v := infer.Variable{Name: "f", Shape: []int{n}, Mean: make([]float64, n), Var: make([]float64, n)}
		p := infer.Prediction{Name: "p", Shape: []int{n}, Mean: make([]float64, n), Var: make([]float64, n), Prob: make([]float64, n)}
		for i := 0; i < n; i++ {
			v.Mean[i], v.Var[i] = rng.NormFloat64(), rng.Float64()
			p.Mean[i], p.Var[i], p.Prob[i] = rng.NormFloat64(), rng.Float64(), rng.Float64()
		}
		rs = append(rs, &infer.Result{Label: l, Method: "ep", Variables: infer.NewVariables([]infer.Variable{v}...), Predictions: []infer.Prediction{p}})
	}
	return rs
}

func BenchmarkWriteJSON(b *testing.B) {
	rs := bigResults()
	for b.Loop() {
		WriteJSON(io.Discard, "big", rs)
	}
}

func BenchmarkWriteCSV(b *testing.B) {
	rs := bigResults()
	for b.Loop() {
		WriteCSV(io.Discard, rs)
	}
}

func BenchmarkWriteTableAll(b *testing.B) {
	rs := bigResults()
	for b.Loop() {
		WriteTable(io.Discard, "big", rs, TableOptions{All: true})
	}
}
