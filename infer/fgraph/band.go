package fgraph

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/netjoint"
)

// bandwidth returns the half-bandwidth of the joint precision of g's
// linear-Gaussian factors in the variables' order, or −1 when g has
// likelihood sites, blocks or gates (whose joint is not read from the
// factors alone). A factor on x_F adds a_F a_Fᵀ/σ² to Λ, coupling the
// variables of F, so the half-bandwidth is the largest max F − min F: a
// chain of d-dimensional states stored time-major, whose conditionals
// touch x_{t−1} and the elements of x_t before their own, has k ≤ 2d − 1.
func bandwidth(g *Graph) int {
	if hasSites(g) || len(g.blocks) > 0 || len(g.gates) > 0 {
		return -1
	}
	k := 0
	for f := 0; f < g.NumFactors(); f++ {
		lo, hi := g.edges(f)
		a, b := g.n, -1
		for _, v := range g.evar[lo:hi] {
			a, b = min(a, int(v)), max(b, int(v))
		}
		k = max(k, b-a)
	}
	return k
}

// Banded reports whether g is a linear-Gaussian graph whose joint
// precision is banded in the variables' order (bandwidth, infer.Banded):
// family = full and exact then solve it at O(n k²) with no bound on n.
func (g *Graph) Banded() bool { return infer.Banded(g.n, bandwidth(g)) }

// bandJoint solves a linear-Gaussian graph of half-bandwidth k in
// information form on the band (netjoint.GaussBlock): Λ and h from the
// factors (addGaussians), the banded Cholesky factor Λ = UᵀU, μ = Λ⁻¹h by
// two banded solves, and the marginal variances from the band of Λ⁻¹ that
// the factor determines (the selected inverse of Takahashi, Fagan & Chen
// 1973, on a chain the Rauch–Tung–Striebel smoother's covariances), all in
// O(n k²) time and O(n k) memory with no n×n matrix. As in
// informationJoint,
//
//	log Z_G = ½ hᵀΛ⁻¹h − ½ log det Λ + (n/2) log 2π − ½ Σ_k [(y_k − c_k)²/σ_k² + log 2πσ_k²],
//
// log det Λ = 2 Σ_i log U_ii from the factor's diagonal, but written
// with the residuals at the mean: the factors' quadratic form is
// Σ_k (y_k − c_k − a_kᵀx)²/σ_k² = R(μ) + (x − μ)ᵀΛ(x − μ), so
//
//	log Z_G = −½ R(μ) − ½ log det Λ + (n/2) log 2π − ½ Σ_k log 2πσ_k²,
//
// which avoids the cancellation of ½ hᵀΛ⁻¹h against Σ_k (y_k − c_k)²/σ_k²
// (both grow as the squared states: 10¹⁰ on a long track, where the
// difference would keep only four digits). It checks done between rows
// (netjoint.GaussBlock.IntegrateDone) and returns netjoint.ErrCanceled
// when it closes.
func bandJoint(g *Graph, k int, done <-chan struct{}) (gaussJoint, error) {
	gb := netjoint.NewGaussBlock(g.n, k)
	addGaussians(g, gb.Add, gb.B)
	_, mean, vr, err := gb.IntegrateDone(done)
	if errors.Is(err, netjoint.ErrCanceled) {
		return gaussJoint{}, err
	}
	if err != nil {
		return gaussJoint{}, errors.New("the linear-Gaussian factors do not define a proper joint Gaussian")
	}
	for _, v := range vr {
		if !(v > 0) || math.IsInf(v, 0) {
			return gaussJoint{}, errors.New("the joint Gaussian is singular: a marginal variance is not positive and finite")
		}
	}
	logZ := residualLogLik(g, mean) - 0.5*gb.LogDet() + 0.5*float64(g.n)*math.Log(2*math.Pi)
	return gaussJoint{mean: mean, vr: vr, logZ: logZ}, nil
}

// residualLogLik returns Σ_k log N(y_k; a_kᵀμ + c_k, σ_k²) over the
// linear-Gaussian factors.
func residualLogLik(g *Graph, mu []float64) float64 {
	terms := make([]float64, 0, g.NumFactors())
	for k := 0; k < g.NumFactors(); k++ {
		if !g.gaussian(k) {
			continue
		}
		lo, hi := g.edges(k)
		d := g.y.At(k) - g.c.At(k)
		for e := lo; e < hi; e++ {
			d -= g.ecoef[e] * mu[g.evar[e]]
		}
		terms = append(terms, -0.5*(d*d/g.v.At(k)+math.Log(2*math.Pi*g.v.At(k))))
	}
	return floats.SumCompensated(terms)
}
