package run

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// netPredictions evaluates the predict statements of a typed-factor-graph
// model from an engine's posterior: mom(v) gives Net variable v's
// posterior mean, variance and E[1/x] (NaN when the engine does not know
// it). Each edge's moments follow — a data edge is its value, an affine
// edge Σ c_k x_k + c₀ has mean Σ c_k E[x_k] + c₀ and variance Σ c_k² Var[x_k]
// (the variables independent: ep's posterior is the product of its
// beliefs; exact and mcmc are only given edges over one variable, which
// the compiler checks) — and the likelihood's PredictNet turns them into
// the predictive of a new observation.
func netPredictions(m *compile.Model, mom func(v int) factor.EdgeMoments) ([]infer.Prediction, error) {
	var out []infer.Prediction
	for _, p := range m.Predicts {
		if p.Net == nil {
			continue
		}
		n := len(p.Net.Factors)
		pr := infer.Prediction{Name: p.Name, Shape: p.Net.Shape, Mean: make([]float64, n), Var: make([]float64, n)}
		for e := range p.Net.Factors {
			f := &p.Net.Factors[e]
			q := p.Net.Kind.PredictNet(f, func(name string) factor.EdgeMoments {
				ed, _ := f.Edge(name)
				return edgeMoments(ed, mom)
			})
			if math.IsNaN(q.Mean) || math.IsNaN(q.Var) {
				return nil, fmt.Errorf("predict %s: the posterior gives no predictive moments of %s (an E[1/x] this method does not report)", p.Name, f.Label)
			}
			pr.Mean[e], pr.Var[e] = q.Mean, q.Var
			if q.HasProb {
				pr.Prob = growf(pr.Prob, n)
				pr.Prob[e] = q.Prob
			}
			if q.Count {
				pr.MeanY = growf(pr.MeanY, n)
				pr.MeanY[e] = q.Mean
			}
		}
		out = append(out, pr)
	}
	return out, nil
}

// edgeMoments are the moments of an edge's value (not a selected edge:
// the compiler refuses those in a predictive).
func edgeMoments(e graph.Edge, mom func(v int) factor.EdgeMoments) factor.EdgeMoments {
	if e.IsData() {
		x := e.Value[0]
		return factor.EdgeMoments{Mean: x, MeanInv: 1 / x}
	}
	if v, ok := e.IsVar(); ok {
		return mom(v)
	}
	out := factor.EdgeMoments{Mean: e.Const, MeanInv: math.NaN()}
	for k, v := range e.Vars {
		m := mom(v)
		out.Mean += e.Coefs[k] * m.Mean
		out.Var += e.Coefs[k] * e.Coefs[k] * m.Var
	}
	return out
}
