package factor

import (
	"math"

	"github.com/fg-infer/fg/graph"
)

// EdgeMoments are the posterior moments of one edge's value that a
// posterior predictive reads: its mean and variance and, for a precision,
// E[1/value] (+Inf when it does not exist, NaN when the engine does not
// know it).
type EdgeMoments struct {
	Mean, Var, MeanInv float64
}

// NetPrediction is the posterior predictive of a new observation y* of a
// likelihood: its mean E[y*] and variance Var[y*] (laws of total
// expectation and variance over the posterior of the factor's edges),
// p(y* = 1) for a Bernoulli (HasProb), and whether y* is a count.
type NetPrediction struct {
	Mean, Var float64
	Prob      float64
	HasProb   bool
	Count     bool
}

// NetPredictive is a likelihood kind whose posterior predictive follows
// from the moments of its edges: E[y*] = E[E[y* | edges]] and
// Var[y*] = E[Var(y* | edges)] + Var(E[y* | edges]). m gives the moments of
// the factor's edge named name (f has no observation).
type NetPredictive interface {
	NetKind
	PredictNet(f *graph.NetFactor, m func(name string) EdgeMoments) NetPrediction
}

// PredictNet: y* | p is Bernoulli(p), so p(y* = 1) = E[p] and
// Var[y*] = E[p](1 − E[p]) (the predictive is Bernoulli(E[p])).
func (Bernoulli) PredictNet(f *graph.NetFactor, m func(string) EdgeMoments) NetPrediction {
	p := m("p").Mean
	return NetPrediction{Mean: p, Var: p * (1 - p), Prob: p, HasProb: true}
}

// PredictNet: y* | p is Binomial(n, p), so E[y*] = n E[p] and
// Var[y*] = n E[p](1 − E[p]) + n(n − 1) Var[p] (under a Beta posterior the
// beta-binomial's variance).
func (Binomial) PredictNet(f *graph.NetFactor, m func(string) EdgeMoments) NetPrediction {
	n, p := m("n").Mean, m("p")
	return NetPrediction{Mean: n * p.Mean, Var: n*p.Mean*(1-p.Mean) + n*(n-1)*p.Var, Count: true}
}

// PredictNet: y* | rate is Poisson(rate), so E[y*] = E[rate] and
// Var[y*] = E[rate] + Var[rate] (under a Gamma posterior the negative
// binomial's variance).
func (Poisson) PredictNet(f *graph.NetFactor, m func(string) EdgeMoments) NetPrediction {
	r := m("rate")
	return NetPrediction{Mean: r.Mean, Var: r.Mean + r.Var, Count: true}
}

// PredictNet: y* | mean, scale is N(mean, s²) with s² the variance edge or
// 1/τ with τ the precision edge, so E[y*] = E[mean] and
// Var[y*] = Var[mean] + E[s²] (or + E[1/τ], infinite when τ's posterior
// has no finite E[1/τ], e.g. a Gamma of shape ≤ 1).
func (Normal) PredictNet(f *graph.NetFactor, m func(string) EdgeMoments) NetPrediction {
	mu := m("mean")
	noise := math.NaN()
	if _, ok := f.Edge("prec"); ok {
		noise = m("prec").MeanInv
	} else if _, ok := f.Edge("var"); ok {
		noise = m("var").Mean
	}
	return NetPrediction{Mean: mu.Mean, Var: mu.Var + noise}
}
