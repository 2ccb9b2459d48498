package fgraph

import (
	"iter"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/gauss"
)

// The directed prior of the dense joint is gauss.Direct and
// gauss.Directed.Moments, the propagation the gold standards run on the
// compiled model too (graph.FactorGraph.JointPrior): linear is the
// engine's storage as the gauss.Linear they read.

// directed is g read as a directed model (gauss.Directed), its
// observations obs the factors condition conditions on.
type directed struct {
	gauss.Directed
	obs []int32
}

// direct reads g as a directed model by peeling (gauss.Direct); ad is g's
// adjacency.
func direct(g *Graph, ad *adjacency) (directed, bool) {
	d, ok := gauss.Direct(linear{g, ad})
	return directed{d, d.Obs}, ok
}

// priorMoments returns the mean and covariance of the directed prior
// (gauss.Directed.Moments).
func priorMoments(g *Graph, ad *adjacency, d directed, done <-chan struct{}) (mu, sigma []float64, logJac float64, err error) {
	return d.Moments(linear{g, ad}, done)
}

// linear is g as a gauss.Linear: its factors (the linear-Gaussian ones
// enter the prior) and blocks, with ad its adjacency.
type linear struct {
	g  *Graph
	ad *adjacency
}

func (l linear) NumVars() int                      { return l.g.n }
func (l linear) NumFactors() int                   { return l.g.NumFactors() }
func (l linear) Gaussian(k int) bool               { return l.g.gaussian(k) }
func (l linear) VarLists() iter.Seq2[int, []int32] { return l.g.varLists() }
func (l linear) NumBlocks() int                    { return len(l.g.blocks) }

func (l linear) Adjacent(v int) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		ad := l.ad
		for _, e := range ad.vedge[ad.vstart[v]:ad.vstart[v+1]] {
			if !yield(ad.efactor[e]) {
				return
			}
		}
	}
}

func (l linear) Form(k int, vars []int, coefs []float64) ([]int, []float64, float64, float64, float64) {
	f := l.g.fac(k)
	return f.vars(vars), f.coefs(coefs), f.c(), f.y(), f.variance()
}

func (l linear) Block(b int) ([]int, []float64, *mat.SymDense) {
	bl := l.g.blocks[b]
	return bl.vars, bl.mean, bl.cov
}
