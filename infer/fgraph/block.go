package fgraph

import (
	"github.com/fg-infer/fg/families/gauss"

	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// block is a dense Gaussian factor N(x_F; Mean, Cov) over several
// variables: an mvnormal or GP prior (Cov the kernel matrix) inside a larger
// graph. The joint prior reads Cov directly (covariance form, prior.go);
// chol checks it and serves the information form of undirected graphs.
type block struct {
	vars   []int
	mean   []float64
	cov    *mat.SymDense
	chol   mat.Cholesky
	jitter float64 // δ added to cov's diagonal (gauss.CholeskyJitter), 0 when none was needed
}

// AddBlock adds the Gaussian factor N(x[vars]; mean, cov) (mean nil = 0),
// a GP or mvnormal prior over the variables vars. cov must be positive
// semi-definite: when it is numerically singular (a GP kernel matrix of
// close inputs or a smooth kernel), the block is N(mean, cov + δI) with the
// smallest δ of gauss.CholeskyJitter, the rule the gold standards use, and
// Jitter reports it. Blocks need family = full: their variables are solved
// jointly.
func (g *Graph) AddBlock(vars []int, mean []float64, cov *mat.SymDense) {
	if g.err != nil {
		return
	}
	b := &block{vars: append([]int(nil), vars...), mean: mean}
	if err := b.factorize(len(vars), mean, cov); err != nil {
		g.err = fmt.Errorf("fgraph: %w", err)
	}
	for i, v := range vars {
		if g.err == nil && (v < 0 || v >= g.n || slices.Index(vars[:i], v) >= 0) {
			g.err = fmt.Errorf("fgraph: block variable %d out of range [0, %d) or repeated", v, g.n)
		}
	}
	if g.err == nil && b.mean == nil {
		b.mean = make([]float64, len(vars))
	}
	if g.err == nil {
		g.blocks = append(g.blocks, b)
	}
}

// factorize checks the block over n variables and sets its covariance and
// Cholesky factor: cov as given when it factorises, else cov + δI with
// gauss.CholeskyJitter's δ (gauss.FactorizeBlock).
func (b *block) factorize(n int, mean []float64, cov *mat.SymDense) error {
	c, delta, err := gauss.FactorizeBlock(n, mean, cov, &b.chol)
	if err != nil {
		return err
	}
	b.cov, b.jitter = c, delta
	return nil
}

// Jitter is the largest δ added to a block's covariance diagonal (AddBlock),
// 0 when every block's covariance factorised as given.
func (g *Graph) Jitter() float64 {
	d := 0.0
	for _, b := range g.blocks {
		d = max(d, b.jitter)
	}
	return d
}

// addTo adds the block to the information form of the joint (only for
// graphs that are not directed, see gaussianJoint):
//
//	Λ_FF += K⁻¹,  h_F += K⁻¹ m,  r −= ½ mᵀK⁻¹m + ½ log det(2πK),
//
// with K⁻¹ applied through the Cholesky factor.
func (b *block) addTo(lam *mat.SymDense, h *mat.VecDense) float64 {
	d := len(b.vars)
	kinv := mat.NewSymDense(d, nil)
	if err := b.chol.InverseTo(kinv); err != nil {
		panic(err) // factorised in AddBlock
	}
	km := mat.NewVecDense(d, nil)
	if err := b.chol.SolveVecTo(km, mat.NewVecDense(d, b.mean)); err != nil {
		panic(err)
	}
	for i, vi := range b.vars {
		h.SetVec(vi, h.AtVec(vi)+km.AtVec(i))
		for j, vj := range b.vars {
			if vj >= vi {
				lam.SetSym(vi, vj, lam.At(vi, vj)+kinv.At(i, j))
			}
		}
	}
	return -0.5*mat.Dot(mat.NewVecDense(d, b.mean), km) - 0.5*b.chol.LogDet() - 0.5*float64(d)*math.Log(2*math.Pi)
}

// logDensity is log N(x_b; m, K) of the block's variables at the joint
// vector x: −½ (x_b − m)ᵀK⁻¹(x_b − m) − ½ log det K − (d/2) log 2π.
func (b *block) logDensity(x []float64) float64 {
	d := len(b.vars)
	r := mat.NewVecDense(d, nil)
	for i, v := range b.vars {
		r.SetVec(i, x[v]-b.mean[i])
	}
	var s mat.VecDense
	if err := b.chol.SolveVecTo(&s, r); err != nil {
		panic(err) // factorised in AddBlock
	}
	return -0.5*mat.Dot(r, &s) - 0.5*b.chol.LogDet() - 0.5*float64(d)*math.Log(2*math.Pi)
}
