// Package gauss holds what fg's dense-Gaussian code paths share so that they
// agree on the same model: the jittered Cholesky factorisation of a Gaussian
// prior covariance (CholeskyJitter, FactorizeJittered), the one rule by which
// the gold standards infer/exact and infer/mcmc and infer/fgraph's dense
// joint Gaussian treat a numerically singular covariance (a GP kernel with
// duplicate inputs), and the joint Gaussian prior of a directed
// linear-Gaussian factor graph (prior.go: Direct, Directed.Moments, Prior),
// propagated in topological order with no inverse, which infer/fgraph's
// dense joint runs on its storage and graph.FactorGraph.JointPrior on the
// compiled model for the gold standards.
package gauss

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CholeskyJitter returns the lower Cholesky factor L of Σ + δI and δ. δ is
// 0 unless Σ is numerically singular (e.g. a GP kernel matrix with duplicate
// or very close inputs, where f_i = f_j); then δ is the first of
// 10^−10, …, 10^−6 times the mean of diag Σ for which the factorisation
// succeeds. The gold standards (infer/exact, infer/mcmc) and infer/fgraph's
// dense joint Gaussian use it, so they treat the same prior the same way; the
// gold standards report δ > 0 to the user.
func CholeskyJitter(cov *mat.SymDense) (*mat.TriDense, float64, error) {
	n := cov.SymmetricDim()
	scale := 0.0
	for i := 0; i < n; i++ {
		scale += cov.At(i, i) / float64(n)
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, 0, fmt.Errorf("prior covariance has diagonal mean %v", scale)
	}
	var ch mat.Cholesky
	if ch.Factorize(cov) {
		var l mat.TriDense
		ch.LTo(&l)
		return &l, 0, nil
	}
	j := mat.NewSymDense(n, nil)
	for delta := 1e-10 * scale; delta <= 1.0001e-6*scale; delta *= 10 {
		j.CopySym(cov)
		for i := 0; i < n; i++ {
			j.SetSym(i, i, cov.At(i, i)+delta)
		}
		if ch.Factorize(j) {
			var l mat.TriDense
			ch.LTo(&l)
			return &l, delta, nil
		}
	}
	return nil, 0, errors.New("prior covariance is not positive definite (even with jitter 1e-6 × mean variance)")
}
