package compile

import (
	"fmt"
	"iter"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/gauss"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// JointPrior returns the joint Gaussian prior N(mean, cov) of the
// variables: the product of the linear-Gaussian factors and the dense
// blocks. The priors and conditionals are directed (one per variable, no
// cycle), so the mean and covariance are propagated in topological order
// with no inverse (gauss.Prior, the propagation infer/fgraph's dense joint
// runs too); a block's covariance is copied as given, or with the jitter
// δ of gauss.CholeskyJitter added to its diagonal when it is numerically
// singular, and jitter is the largest δ used (0 when none). It is the
// prior of the gold standards on a factor graph; it fails above
// infer.MaxJoint variables.
func (g *FactorGraph) JointPrior() (mean []float64, cov *mat.SymDense, jitter float64, err error) {
	mean, cov, _, _, jitter, err = g.JointPriorTangents(nil)
	return mean, cov, jitter, err
}

// JointPriorTangents is JointPrior with the derivatives of the mean and
// covariance in each direction ts[t] (a tangent of the linear-Gaussian
// factors' numbers in factor order, and of the dense blocks' in g.Dense's
// order: gauss.PriorTangents); a jitter is held fixed.
func (g *FactorGraph) JointPriorTangents(ts []gauss.Tangent) (mean []float64, cov *mat.SymDense, dmean [][]float64, dcov []*mat.SymDense, jitter float64, err error) {
	if g.NumVars > infer.MaxJoint {
		return nil, nil, nil, nil, 0, fmt.Errorf("a dense joint over %d variables (at most %d)", g.NumVars, infer.MaxJoint)
	}
	p := &priorForms{g: g, covs: make([]*mat.SymDense, len(g.Dense))}
	for b, d := range g.Dense {
		var delta float64
		if p.covs[b], delta, err = blockCov(d); err != nil {
			return nil, nil, nil, nil, 0, err
		}
		jitter = max(jitter, delta)
	}
	p.adjacency()
	mean, cov, dmean, dcov, err = gauss.PriorTangents(p, ts)
	return mean, cov, dmean, dcov, jitter, err
}

// blockCov is the covariance of block d's prior as the joint reads it:
// as given when it factorises, else jittered by δ (gauss.FactorizeBlock,
// the check infer/fgraph's blocks take too).
func blockCov(d *graph.Block) (*mat.SymDense, float64, error) {
	var ch mat.Cholesky
	cov, delta, err := gauss.FactorizeBlock(d.N, d.Prior.Mean, d.Prior.Cov, &ch)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", d.Name, err)
	}
	return cov, delta, nil
}

// priorForms is the prior part of g — its linear-Gaussian factors, read in
// place from their columns, and its dense blocks with covs their
// covariances as the joint reads them — as the gauss.Linear the joint
// prior propagates, with the factors of each variable's edges (CSR:
// vfac[vstart[v]:vstart[v+1]]).
type priorForms struct {
	g            *FactorGraph
	covs         []*mat.SymDense
	vstart, vfac []int32
}

// adjacency lists the factors of each variable's edges, in factor order.
func (p *priorForms) adjacency() {
	n := p.g.NumVars
	p.vstart = make([]int32, n+1)
	for _, vs := range p.VarLists() {
		for _, v := range vs {
			p.vstart[v+1]++
		}
	}
	for v := range n {
		p.vstart[v+1] += p.vstart[v]
	}
	p.vfac = make([]int32, p.vstart[n])
	fill := append([]int32(nil), p.vstart[:n]...)
	for k, vs := range p.VarLists() {
		for _, v := range vs {
			p.vfac[fill[v]] = int32(k)
			fill[v]++
		}
	}
}

func (p *priorForms) NumVars() int      { return p.g.NumVars }
func (p *priorForms) NumFactors() int   { return p.g.gaussians.Len() }
func (p *priorForms) Gaussian(int) bool { return true }
func (p *priorForms) NumBlocks() int    { return len(p.g.Dense) }

func (p *priorForms) VarLists() iter.Seq2[int, []int32] {
	return func(yield func(int, []int32) bool) {
		var vars []int
		var vs []int32
		a := &p.g.gaussians
		for k := range a.Len() {
			vars, vs = a.AppendVars(k, vars[:0]), vs[:0]
			for _, v := range vars {
				vs = append(vs, int32(v))
			}
			if !yield(k, vs) {
				return
			}
		}
	}
}

func (p *priorForms) Adjacent(v int) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for _, k := range p.vfac[p.vstart[v]:p.vstart[v+1]] {
			if !yield(k) {
				return
			}
		}
	}
}

func (p *priorForms) Form(k int, vars []int, coefs []float64) ([]int, []float64, float64, float64, float64) {
	a := &p.g.gaussians
	vars, coefs, c := a.Form(k, vars, coefs)
	return vars, coefs, c, a.Y(k), a.Var(k)
}

func (p *priorForms) Block(b int) ([]int, []float64, *mat.SymDense) {
	d := p.g.Dense[b]
	return d.Vars(), d.Prior.Mean, p.covs[b]
}
