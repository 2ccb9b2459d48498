package run

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families/gauss"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/ad"
)

// The derivatives of a factor graph's joint block (learnView's
// jointLearnBlock) are exact too: its prior N(μ₀, Σ₀) is propagated from
// the linear-Gaussian factors' numbers and the dense blocks' priors in
// topological order (graph.FactorGraph.JointPrior, gauss.Prior), and
// the same pass propagates their tangents (graph.FactorGraph.
// JointPriorTangents, gauss.Directed.MomentsTangents), seeded per learned
// param with the numbers' derivatives: the factors' coefficients,
// constants and variances and the sites' parameters by forward-mode AD
// (compile.LearnFunc.GraphTangents, as on a forest), a gp block's
// covariance as Σ_j (∂θ_j/∂x) ∂K/∂θ_j with the kernel's hyperparameter
// gradients (stdlib/kernel), an mvnormal block's mean and covariance from
// their jets. A number without a jet is NaN, which reaches what depends on
// it; derivs differences those (a covariance with a NaN entry whole).

// jointTangents are a joint view's prior N(mean, cov) at x computed in
// one pass with its derivatives dmean[k], dcov[k] in each learned param
// x_k, from the forward-mode derivatives t of the numbers it propagates:
// the view's block is made from mean and cov (learnViewOf), and
// jointJetDerivs reads the derivatives, so that the prior is propagated
// once per evaluation.
type jointTangents struct {
	x          []float64
	t          *compile.GraphTangents
	mean       []float64
	cov        *mat.SymDense
	dmean      [][]float64
	dcov       []*mat.SymDense
	vars, liks []float64 // fg's variances and sites' parameters (forestVars, forestLiks)
	err        error     // GraphTangents': jointJetDerivs returns it
}

// jointPriorTangents is the joint prior of fg, the factor graph of the
// model at x, with its tangents; nil when the derivatives' layout is not
// fg's (the prior is then computed alone and the derivatives differenced).
func (lb *learnBuilder) jointPriorTangents(x []float64, fg *graph.FactorGraph) (*jointTangents, error) {
	t, err := lb.f.GraphTangents(x, fg)
	if err != nil {
		return &jointTangents{x: slices.Clone(x), err: err}, nil
	}
	vars, affs, liks := forestVars(fg), forestAffs(fg), forestLiks(fg)
	if len(t.Vars) != len(vars) || len(t.Affs) != len(affs) || len(t.Liks) != len(liks) || len(t.Blocks) != len(fg.Dense) {
		return nil, nil
	}
	ng := fg.NumGaussians()
	off := gaussianOffsets(fg)
	blocks, err := blockTangents(fg, t, len(x))
	if err != nil {
		return nil, err
	}
	ts := make([]gauss.Tangent, len(x))
	for k := range ts {
		jt := &jointTangent{off: off, dvar: make([]float64, ng), daff: make([]float64, off[ng]), blocks: blocks[k]}
		for g := range ng {
			jt.dvar[g] = jetGrad(t.Vars[g], k, vars[g])
		}
		for i := range jt.daff {
			jt.daff[i] = jetGrad(t.Affs[i], k, affs[i])
		}
		ts[k] = jt
	}
	mean, cov, dmean, dcov, _, err := fg.JointPriorTangents(ts, infer.MaxJoint)
	if err != nil {
		return nil, err
	}
	return &jointTangents{x: slices.Clone(x), t: t, mean: mean, cov: cov, dmean: dmean, dcov: dcov, vars: vars, liks: liks}, nil
}

// jointJetDerivs is jetDerivs on a joint-block view, at the factor graph
// of fg, the model at x of which the view was made (compileAt), from
// the tangents its prior was computed with there (lb.joint).
func (lb *learnBuilder) jointJetDerivs(x []float64, fg *graph.FactorGraph, s0 snapshot) ([]snapshot, error) {
	if len(s0.mean) != 1 || s0.cov[0] == nil {
		return nil, nil
	}
	jt := lb.joint
	if jt == nil || !slices.Equal(jt.x, x) {
		var err error
		if jt, err = lb.jointPriorTangents(x, fg); err != nil || jt == nil {
			return nil, err
		}
	}
	if jt.err != nil {
		return nil, jt.err
	}
	t, dmean, dcov, vars, liks := jt.t, jt.dmean, jt.dcov, jt.vars, jt.liks
	ng := fg.NumGaussians()
	n := len(s0.mean[0]) // fg.NumVars, or one more for the sites' constant (jointLearnBlock)
	ds := make([]snapshot, len(x))
	for k := range ds {
		d := &ds[k]
		d.hyper = [][]float64{nil}
		d.mean = [][]float64{make([]float64, n)}
		copy(d.mean[0], dmean[k])
		dK := mat.NewSymDense(n, nil)
		dK.SliceSym(0, fg.NumVars).(*mat.SymDense).CopySym(dcov[k])
		d.cov = []*mat.SymDense{dK}
		lik := make([]float64, len(s0.lik[0]))
		normal, other := ng, 0 // the sites' entries in vars and liks (forestVars, forestLiks)
		for i, s := range fg.Sites() {
			if i >= len(lik) {
				break
			}
			if _, ok := s.Shared.Lik.(factor.Normal); ok {
				lik[i] = jetGrad(t.Vars[normal], k, vars[normal])
				normal++
				continue
			}
			lik[i] = jetGrad(t.Liks[other], k, liks[other])
			other++
		}
		d.lik = [][]float64{lik}
	}
	return ds, nil
}

// gaussianOffsets are each linear-Gaussian factor's first entry in
// forestAffs (its coefficients, then its constant), and their end.
func gaussianOffsets(fg *graph.FactorGraph) []int {
	off := make([]int, 0, fg.NumGaussians()+1)
	at := 0
	for _, g := range fg.Gaussians() {
		off = append(off, at)
		at += len(g.Aff.Coefs) + 1
	}
	return append(off, at)
}

// blockTangent is the derivative of a dense block's prior in one learned
// param (nil: 0).
type blockTangent struct {
	dmean []float64
	dcov  *mat.SymDense
}

// blockTangents are the derivatives of fg's dense blocks in each of np
// learned params, from t.Blocks: a gp block's covariance by the kernel's
// hyperparameter gradients, an mvnormal block's mean and covariance from
// their jets; NaN where a number has none.
func blockTangents(fg *graph.FactorGraph, t *compile.GraphTangents, np int) ([][]blockTangent, error) {
	out := make([][]blockTangent, np)
	for k := range out {
		out[k] = make([]blockTangent, len(fg.Dense))
	}
	for b, d := range fg.Dense {
		pt := t.Blocks[b]
		if pt == nil {
			continue
		}
		n := d.N
		mean := d.Prior.Mean
		if mean == nil {
			mean = make([]float64, n)
		}
		if gaussianProcess(d.Prior) {
			kern := kernelOf(d.Prior.Kernel)
			flat := kern.Flat()
			var grads []*mat.SymDense
			for k := range out {
				dK := mat.NewSymDense(n, nil)
				for j, v := range flat {
					dth := jetGrad(jetAt(pt.Hyper, j), k, v)
					if dth == 0 {
						continue
					}
					if grads == nil {
						g, err := kern.Grads(d.Prior.X)
						if err != nil {
							return nil, err
						}
						grads = g
					}
					addScaledSym(dK, dth, grads[j]) // NaN: every entry NaN
				}
				out[k][b] = blockTangent{dmean: jetGrads(pt.Mean, k, mean), dcov: dK}
			}
			continue
		}
		for k := range out {
			dK := mat.NewSymDense(n, nil)
			for r := range n {
				for q := r; q < n; q++ {
					v := math.NaN()
					if pt.Cov != nil {
						v = jetGrad(jetAt(pt.Cov, r*n+q), k, d.Prior.Cov.At(r, q))
					}
					dK.SetSym(r, q, v)
				}
			}
			out[k][b] = blockTangent{dmean: jetGrads(pt.Mean, k, mean), dcov: dK}
		}
	}
	return out, nil
}

// jetGrads are the derivatives in x_k of the jets js of the numbers v
// (NaN where there is none).
func jetGrads(js []ad.Jet, k int, v []float64) []float64 {
	out := make([]float64, len(v))
	for i := range out {
		out[i] = jetGrad(jetAt(js, i), k, v[i])
	}
	return out
}

// jointTangent is the derivative of a factor graph's prior numbers in one
// learned param, as gauss.Tangent reads it: the linear-Gaussian factors'
// coefficients and constants (daff, factor g's from off[g]) and
// variances (dvar), the dense blocks'.
type jointTangent struct {
	off        []int
	daff, dvar []float64
	blocks     []blockTangent
}

func (t *jointTangent) Form(k int, dcoefs []float64) ([]float64, float64, float64, float64) {
	lo, hi := t.off[k], t.off[k+1]
	return append(dcoefs, t.daff[lo:hi-1]...), t.daff[hi-1], 0, t.dvar[k]
}

func (t *jointTangent) Block(b int) ([]float64, *mat.SymDense) {
	return t.blocks[b].dmean, t.blocks[b].dcov
}
