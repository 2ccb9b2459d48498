package fgraph

import (
	"errors"
	"math"
	"slices"

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
	for _, vs := range g.varLists() {
		k = max(k, spread(g, vs))
	}
	return k
}

// Banded reports whether g is a linear-Gaussian graph whose joint
// precision is banded in the variables' order (bandwidth, infer.Banded):
// family = full and exact then solve it at O(n k²) with no bound on n.
func (g *Graph) Banded() bool { return infer.Banded(g.n, bandwidth(g)) }

// bandJoint solves a linear-Gaussian graph of half-bandwidth k in
// square-root information form on the band (netjoint.RootBand): each
// factor N(y_k; a_kᵀx + c_k, σ_k²) is a row a_k/σ_k, (y_k − c_k)/σ_k of a
// least-squares system, folded by Givens rotations in order of its first
// variable (rootRows) into the banded triangular R with RᵀR = Λ, without
// forming Λ; μ = R⁻¹z by one banded solve, and the marginal variances
// from the band of Λ⁻¹ that R determines (the selected inverse of
// Takahashi, Fagan & Chen 1973, on a chain the Rauch–Tung–Striebel
// smoother's covariances), all in O(m k² + n k²) time for m factors and
// O(n k) memory with no n×n matrix. The information form (Λ summed, then
// its Cholesky factor) resolved Λ⁻¹ only to κ(Λ)·ε: 10⁻⁴ relative in the
// variances of a 900-step near-constant-velocity chain, where κ(Λ) ~ 10¹¹
// (TestBandJointPrecision; netjoint.RootBand says why the rows keep the
// digits). As in informationJoint,
//
//	log Z_G = ½ hᵀΛ⁻¹h − ½ log det Λ + (n/2) log 2π − ½ Σ_k [(y_k − c_k)²/σ_k² + log 2πσ_k²],
//
// log det Λ = 2 Σ_i log R_ii from the factor's diagonal, but written
// with the residuals at the mean: the factors' quadratic form is
// Σ_k (y_k − c_k − a_kᵀx)²/σ_k² = R(μ) + (x − μ)ᵀΛ(x − μ), so
//
//	log Z_G = −½ R(μ) − ½ log det Λ + (n/2) log 2π − ½ Σ_k log 2πσ_k²,
//
// which avoids the cancellation of ½ hᵀΛ⁻¹h against Σ_k (y_k − c_k)²/σ_k²
// (both grow as the squared states: 10¹⁰ on a long track, where the
// difference would keep only four digits). It checks done every 2¹⁴ rows
// and returns netjoint.ErrCanceled when it closes.
func bandJoint(g *Graph, k int, done <-chan struct{}) (gaussJoint, error) {
	rb := netjoint.NewRootBand(g.n, k)
	if err := rootRows(g, rb, done, func(f int) bool { return g.gaussian(f) }, func(_ int, fk fac) (float64, float64) {
		s := math.Sqrt(fk.variance())
		return 1 / s, (fk.y() - fk.c()) / s
	}); err != nil {
		return gaussJoint{}, err
	}
	mean, cov, err := rb.SolveDone(done)
	if errors.Is(err, netjoint.ErrCanceled) {
		return gaussJoint{}, err
	}
	if err != nil {
		return gaussJoint{}, errors.New("the linear-Gaussian factors do not define a proper joint Gaussian")
	}
	vr := bandDiag(cov, g.n, k)
	for _, v := range vr {
		if !(v > 0) || math.IsInf(v, 0) {
			return gaussJoint{}, errors.New("the joint Gaussian is singular: a marginal variance is not positive and finite")
		}
	}
	logZ := residualLogLik(g, mean) - 0.5*rb.LogDet() + 0.5*float64(g.n)*math.Log(2*math.Pi)
	return gaussJoint{mean: mean, vr: vr, logZ: logZ}, nil
}

// rootRows adds to rb a row per factor f with use(f), in order of the
// factors' first variables (RootBand.FoldRows): scale·a_f over its
// variables and right-hand side b, with (scale, b) = row(f, its view). A
// variable named twice in a factor adds its coefficients, as addGaussians
// does. It checks done every 2¹⁴ rows.
func rootRows(g *Graph, rb *netjoint.RootBand, done <-chan struct{}, use func(f int) bool, row func(f int, fk fac) (scale, b float64)) error {
	first := make([]int32, g.NumFactors())
	for f, vs := range g.varLists() {
		first[f] = -1
		if use(f) && len(vs) > 0 {
			first[f] = slices.Min(vs)
		}
	}
	var vars []int
	var coefs []float64
	return rb.FoldRows(first, done, func(f int, a []float64) (int, float64) {
		fk := g.fac(f)
		vars, coefs = fk.vars(vars[:0]), fk.coefs(coefs[:0])
		base := int(first[f])
		scale, b := row(f, fk)
		top := 0
		for i, v := range vars {
			j := v - base
			a[j] += scale * coefs[i]
			top = max(top, j)
		}
		return top + 1, b
	})
}

// bandDiag is the diagonal of a band stored row by row (row i holds
// M[i][i..i+k]).
func bandDiag(band []float64, n, k int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = band[i*(k+1)]
	}
	return d
}

// residualLogLik returns Σ_k log N(y_k; a_kᵀμ + c_k, σ_k²) over the
// linear-Gaussian factors.
func residualLogLik(g *Graph, mu []float64) float64 {
	terms := make([]float64, 0, g.NumFactors())
	for _, fk := range g.facs() {
		if !fk.gaussian() {
			continue
		}
		d := fk.y() - fk.c()
		for e := fk.lo; e < fk.hi; e++ {
			d -= fk.a(e) * mu[fk.v(e)]
		}
		terms = append(terms, -0.5*(d*d/fk.variance()+math.Log(2*math.Pi*fk.variance())))
	}
	return floats.SumCompensated(terms)
}
