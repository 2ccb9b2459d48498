package mcmc

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/netjoint"
)

// maxJointBlock bounds the Gaussian variables drawn jointly (a dense
// precision and its Cholesky factor per sweep); larger sets of coupled
// Gaussian variables are drawn one at a time.
const maxJointBlock = 200

// findBlocks marks the sets of two or more coupled Gaussian variables whose
// joint conditional is Gaussian at the starting point (netjoint's
// FitQuadratic) for blocked Gibbs: a regression's correlated weights are
// then drawn together instead of one at a time.
func (ch *netChain) findBlocks() {
	n := ch.j.Net
	ch.blockOf = make([]int, len(n.Vars))
	for v := range ch.blockOf {
		ch.blockOf[v] = -1
	}
	for _, vars := range n.Components(func(v int) bool { return n.Vars[v].Family == graph.Gaussian }) {
		if len(vars) < 2 || len(vars) > maxJointBlock {
			continue
		}
		var fs []int
		seen := map[int]bool{}
		for _, v := range vars {
			for _, f := range n.FactorsOf(v) {
				if !seen[f] {
					seen[f] = true
					fs = append(fs, f)
				}
			}
		}
		if _, _, err := ch.gaussConditional(vars, fs); err != nil {
			continue
		}
		for _, v := range vars {
			ch.blockOf[v] = len(ch.blocks)
		}
		ch.blocks, ch.blockFs = append(ch.blocks, vars), append(ch.blockFs, fs)
	}
}

// gaussConditional is the Gaussian conditional of vars given the rest,
// from the quadratic fit −½ xᵀPx + bᵀx of Σ_{f ∈ fs} log f: the Cholesky
// factor of P and the mean P⁻¹b.
func (ch *netChain) gaussConditional(vars, fs []int) (*mat.Cholesky, *mat.VecDense, error) {
	p, b, _, err := ch.j.FitQuadratic(fs, vars, ch.x)
	if err != nil {
		return nil, nil, err
	}
	n := len(vars)
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(n, p)) {
		return nil, nil, fmt.Errorf("%w: the conditional precision is not positive definite", netjoint.ErrNotConjugate)
	}
	var mean mat.VecDense
	if err := chol.SolveVecTo(&mean, mat.NewVecDense(n, b)); err != nil {
		return nil, nil, err
	}
	return &chol, &mean, nil
}

// drawBlock draws block b from its Gaussian conditional N(P⁻¹b, P⁻¹):
// x = P⁻¹b + U⁻¹z with P = UᵀU and z ~ N(0, I). Should the fit fail at
// this point, the block's variables are updated one at a time instead.
func (ch *netChain) drawBlock(b int, burnin bool) error {
	vars := ch.blocks[b]
	chol, mean, err := ch.gaussConditional(vars, ch.blockFs[b])
	if err != nil {
		for _, v := range vars {
			if err := ch.update(v, burnin); err != nil {
				return err
			}
		}
		return nil
	}
	ch.updates += len(vars)
	z := mat.NewVecDense(len(vars), nil)
	for i := range vars {
		z.SetVec(i, ch.rng.NormFloat64())
	}
	var u mat.TriDense
	chol.UTo(&u)
	var d mat.VecDense
	if err := d.SolveVec(&u, z); err != nil {
		return err
	}
	for i, v := range vars {
		ch.x[ch.j.Off(v)] = mean.AtVec(i) + d.AtVec(i)
	}
	return nil
}
