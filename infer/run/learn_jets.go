package run

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib/ad"
)

// jetDerivs are the snapshot's derivatives at x in every learned param
// by forward-mode AD (compile.LearnFunc.Tangents), shaped like s0, the
// snapshot at x: a quantity without an exact derivative (one the learned
// params reach through an expression with no jet, or whose jet's value is
// not the number compiled at x) is NaN there, and derivs differences it.
// On a factor graph's joint block the prior's mean and covariance are
// propagated with their tangents (jointJetDerivs).
func (lb *learnBuilder) jetDerivs(x []float64, s0 snapshot) ([]snapshot, error) {
	if onMessages(lb.m) && lb.m.Net == nil {
		return lb.forestJetDerivs(x, s0)
	}
	if lb.m.Net != nil {
		return lb.netJetDerivs(x, s0)
	}
	if at := lb.at; at != nil && at.FactorGraph != nil && at.Blocks() == nil {
		return lb.jointJetDerivs(x, at.FactorGraph, s0)
	}
	if !lb.f.HasTangents() {
		return nil, nil
	}
	t, err := lb.f.Tangents(x)
	if err != nil {
		return nil, err
	}
	blocks := lb.m.Blocks()
	if len(blocks) != len(s0.hyper) {
		return nil, nil
	}
	byLat := map[int]int{}
	for bi, b := range blocks {
		byLat[b.Latent] = bi
	}
	ds := make([]snapshot, len(x))
	for k := range ds {
		for bi := range blocks {
			ds[k].hyper = append(ds[k].hyper, make([]float64, len(s0.hyper[bi])))
			ds[k].lik = append(ds[k].lik, make([]float64, len(s0.lik[bi])))
			ds[k].mean = append(ds[k].mean, make([]float64, len(s0.mean[bi])))
			ds[k].cov = append(ds[k].cov, nil)
		}
	}
	for _, p := range t.Priors {
		bi, ok := byLat[p.Latent]
		if !ok {
			continue
		}
		priorDerivs(ds, bi, blocks[bi], p, s0)
	}
	for _, st := range t.Sites {
		bi, ok := byLat[st.Latent]
		if !ok {
			continue
		}
		for i := st.First; i < st.First+st.N && i < len(blocks[bi].Sites); i++ {
			g, ok := blocks[bi].Sites[i].Lik.(factor.ParamGrad)
			if !ok {
				continue // no learned likelihood parameter (snapOf's 0)
			}
			name, _, _, _ := g.LearnParam()
			js := st.Params[name]
			var j ad.Jet
			switch {
			case len(js) == 1:
				j = js[0]
			case len(js) == st.N:
				j = js[i-st.First]
			default:
				j = ad.Const(math.NaN())
			}
			for k := range ds {
				ds[k].lik[bi][i] = jetGrad(j, k, s0.lik[bi][i])
			}
		}
	}
	return ds, nil
}

// forestJetDerivs is jetDerivs on a forest view: the derivatives of its
// factors' variances, means and sites' parameters
// (compile.LearnFunc.GraphTangents).
func (lb *learnBuilder) forestJetDerivs(x []float64, s0 snapshot) ([]snapshot, error) {
	t, err := lb.f.GraphTangents(x, lb.m.FactorGraph)
	if err != nil {
		return nil, err
	}
	if len(t.Vars) != len(s0.gvar) || len(t.Affs) != len(s0.gaff) || len(t.Liks) != len(s0.glik) {
		return nil, nil
	}
	ds := make([]snapshot, len(x))
	for k := range ds {
		d := &ds[k]
		d.gvar, d.gaff, d.glik = make([]float64, len(s0.gvar)), make([]float64, len(s0.gaff)), make([]float64, len(s0.glik))
		for i, j := range t.Vars {
			d.gvar[i] = jetGrad(j, k, s0.gvar[i])
		}
		for i, j := range t.Affs {
			d.gaff[i] = jetGrad(j, k, s0.gaff[i])
		}
		for i, j := range t.Liks {
			d.glik[i] = jetGrad(j, k, s0.glik[i])
		}
	}
	return ds, nil
}

// netJetDerivs is jetDerivs on a typed factor graph: the derivatives of
// its factors' data and affine numbers (compile.LearnFunc.NetTangents).
func (lb *learnBuilder) netJetDerivs(x []float64, s0 snapshot) ([]snapshot, error) {
	t, err := lb.f.NetTangents(x, lb.m.Net)
	if err != nil {
		return nil, err
	}
	if len(t.Factors) != len(s0.net) {
		return nil, nil
	}
	ds := make([]snapshot, len(x))
	for k := range ds {
		ds[k].net = make([][]float64, len(s0.net))
		for fi, v := range s0.net {
			d := make([]float64, len(v))
			if js := t.Factors[fi]; js != nil {
				for i := range d {
					d[i] = jetGrad(jetAt(js, i), k, v[i])
				}
			}
			ds[k].net[fi] = d
		}
	}
	return ds, nil
}

// jetAt is js[i], or a NaN constant past its end.
func jetAt(js []ad.Jet, i int) ad.Jet {
	if i < len(js) {
		return js[i]
	}
	return ad.Const(math.NaN())
}

// jetGrad is ∂j/∂x_k, or NaN when j's value is not v, the number
// compiled at x (its expression was not evaluated as compile evaluates
// it).
func jetGrad(j ad.Jet, k int, v float64) float64 {
	if !(math.Abs(j.V-v) <= 1e-12*math.Max(1, math.Abs(v))) { // NaN: no jet
		return math.NaN()
	}
	if j.G == nil {
		return 0
	}
	return j.G[k]
}

// priorDerivs sets block bi's prior derivatives in every ds[k] from p:
// the kernel hyperparameters of a gp prior, the mean and the covariance
// (diagonal from a normal prior's variances) otherwise; NaN where p has
// none.
func priorDerivs(ds []snapshot, bi int, b *graph.Block, p compile.PriorTangent, s0 snapshot) {
	nan := ad.Const(math.NaN())
	at := jetAt
	n := len(s0.mean[bi])
	for k := range ds {
		for i := range ds[k].mean[bi] {
			ds[k].mean[bi][i] = jetGrad(at(p.Mean, i), k, s0.mean[bi][i])
		}
	}
	if gaussianProcess(b.Prior) {
		for k := range ds {
			for j := range ds[k].hyper[bi] {
				ds[k].hyper[bi][j] = jetGrad(at(p.Hyper, j), k, s0.hyper[bi][j])
			}
		}
		return
	}
	K := s0.cov[bi]
	if K == nil {
		return // a streamed block: no covariance is differentiated (snapOf)
	}
	entry := func(r, q int) ad.Jet {
		switch {
		case p.Cov != nil:
			return at(p.Cov, r*n+q)
		case p.Var != nil:
			return at(p.Var, r)
		}
		return nan
	}
	for k := range ds {
		var dK *mat.SymDense
		for r := range n {
			hi := n
			if p.Cov == nil && p.Var != nil {
				hi = r + 1 // diagonal: a normal prior's covariance is diag(var)
			}
			for q := r; q < hi; q++ {
				d := jetGrad(entry(r, q), k, K.At(r, q))
				if d == 0 {
					continue
				}
				if dK == nil {
					dK = mat.NewSymDense(n, nil)
				}
				dK.SetSym(r, q, d)
			}
		}
		ds[k].cov[bi] = dK
	}
}

// fillNaN sets the NaN entries of the exact derivative d from the
// differenced one e (a covariance with a NaN entry is replaced whole).
func fillNaN(d, e snapshot) {
	fill := func(dst, src []float64) {
		for i, v := range dst {
			if math.IsNaN(v) {
				dst[i] = src[i]
			}
		}
	}
	fill(d.gvar, e.gvar)
	fill(d.gaff, e.gaff)
	fill(d.glik, e.glik)
	for fi := range d.net {
		fill(d.net[fi], e.net[fi])
	}
	for bi := range d.hyper {
		fill(d.hyper[bi], e.hyper[bi])
		fill(d.lik[bi], e.lik[bi])
		fill(d.mean[bi], e.mean[bi])
		if c := d.cov[bi]; c != nil && hasNaNSym(c) {
			d.cov[bi] = e.cov[bi]
		}
	}
}

// hasNaN reports whether d has an entry without an exact derivative.
func (d snapshot) hasNaN() bool {
	for _, v := range append([][]float64{d.gvar, d.gaff, d.glik}, d.net...) {
		for _, x := range v {
			if math.IsNaN(x) {
				return true
			}
		}
	}
	for bi := range d.hyper {
		for _, v := range [][]float64{d.hyper[bi], d.lik[bi], d.mean[bi]} {
			for _, x := range v {
				if math.IsNaN(x) {
					return true
				}
			}
		}
		if c := d.cov[bi]; c != nil && hasNaNSym(c) {
			return true
		}
	}
	return false
}

func hasNaNSym(c *mat.SymDense) bool {
	n := c.SymmetricDim()
	for r := range n {
		for q := r; q < n; q++ {
			if math.IsNaN(c.At(r, q)) {
				return true
			}
		}
	}
	return false
}
