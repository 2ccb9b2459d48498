package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var gammaBuiltin = stdlib.Builtin{Name: "gamma", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("shape", stdlib.NumberT, "shape a > 0"),
		stdlib.Required("rate", stdlib.NumericT, "rate b > 0, or a gamma latent (a hierarchical rate)")},
	Doc: "Gamma prior p(x) = b^a x^(a−1) e^(−b x) / Γ(a) on a positive x (shape a, rate b; mean a/b): the conjugate prior of a precision and of a poisson rate"}

// Gamma is the prior Gamma(x; a, b) = bᵃ x^{a−1} e^{−bx}/Γ(a) on a
// variable of the Gamma family (shape a, rate b). Edges: x (the Gamma
// variable), shape (data, > 0), rate (data > 0, or a Gamma variable: a
// hierarchical rate, to which the factor is conjugate as well). In the
// natural parameters (log x, x) of x the factor is (a − 1, −b); in those of
// the rate, (a, −x).
type Gamma struct{}

func (Gamma) Name() string             { return "gamma" }
func (Gamma) Role() Role               { return Prior }
func (Gamma) Builtin() *stdlib.Builtin { return &gammaBuiltin }

func (Gamma) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.Gamma}, Doc: "the Gamma variable",
		EP: "exact with a data rate; with a gamma rate, quadrature in log x", VMP: "closed form (E rate)"},
		{Name: "shape", Required: true, Doc: "shape (data)"},
		{Name: "rate", Required: true, Families: []graph.Family{graph.Gamma}, Doc: "rate (data or a Gamma variable)",
			EP: "exact with data x; with a gamma x, quadrature in log x", VMP: "closed form (E x)"}}
}

func (k Gamma) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("gamma", name, v); err != nil {
			return err
		}
		return positive("gamma", name, v)
	})
}

// LogDensityEdges is log Gamma(x; shape, rate).
func (Gamma) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return logGamma(scalarEdge(f, vals, "x"), scalarEdge(f, vals, "shape"), scalarEdge(f, vals, "rate"))
}

// logGamma is log Gamma(x; a, b) (shape a, rate b).
func logGamma(x, a, b float64) float64 {
	la, _ := math.Lgamma(a)
	return a*math.Log(b) + (a-1)*math.Log(x) - b*x - la
}

// expForm: with a data rate b the factor is, in x,
// exp(a log b − log Γ(a) + (a − 1, −b)·(log x, x)); with data x and a
// Gamma rate r it is, in r, exp((a−1) log x − log Γ(a) + (a, −x)·(log r, r)).
func (Gamma) expForm(y []float64, in []In) (int, []float64, float64, error) {
	a := dataOf(in, "shape")[0]
	la, _ := math.Lgamma(a)
	e, err := latentEdge(in)
	if err != nil {
		return 0, nil, 0, err
	}
	if e < 0 {
		return -1, nil, logGamma(dataOf(in, "x")[0], a, dataOf(in, "rate")[0]), nil
	}
	if in[e].Name == "x" {
		b := dataOf(in, "rate")[0]
		return e, []float64{a - 1, -b}, a*math.Log(b) - la, nil
	}
	x := dataOf(in, "x")[0]
	return e, []float64{a, -x}, (a-1)*math.Log(x) - la, nil
}

// EP: exact (conjugateEP) when x or the rate is data. With both latent
// the tilted distribution is not Gamma in x: integrating the rate out of
// Gamma(x; a, r)^u Gamma(r; a_r, b_r) leaves
//
//	q(x) x^{u(a−1)} Γ(a)^{−u} Γ(a_r + ua) / (b_r + ux)^{a_r+ua}
//
// which logQuad integrates in log x; given x the rate is
// Gamma(a_r + ua, b_r + ux), whose E r and E log r the same nodes average.
// Both tilted marginals are then projected onto the Gamma family (E x,
// E log x) by infer/mp — Infer.NET's GammaFromShapeAndRate operator does
// the same by quadrature.
func (k Gamma) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	ix, ir := edgeIndex(in, "x"), edgeIndex(in, "rate")
	if in[ix].IsData() || in[ir].IsData() {
		return conjugateEP(k, y, in, u, out)
	}
	a := dataOf(in, "shape")[0]
	qx, qr := families.GammaOf(in[ix].Nat), families.GammaOf(in[ir].Nat)
	if !qx.Proper() || !qr.Proper() {
		return 0, fmt.Errorf("gamma: improper cavity: %w", families.ErrImproper)
	}
	la, _ := math.Lgamma(a)
	sh := qr.Shape + u*a
	lsh, _ := math.Lgamma(sh)
	psh := families.Digamma(sh)
	c := -u*la + lsh
	lw := func(t float64) float64 {
		x := math.Exp(t)
		return c + (qx.Shape-1+u*(a-1))*t - qx.Rate*x + t - sh*math.Log(qr.Rate+u*x)
	}
	var ex, elx, er, elr float64
	t0, _ := qx.ESS()
	logZ, err := logQuad(lw, t0, math.Sqrt(families.Trigamma(qx.Shape)), func(t, w float64) {
		x := math.Exp(t)
		ex += w * x
		elx += w * t
		br := qr.Rate + u*x
		er += w * sh / br
		elr += w * (psh - math.Log(br))
	})
	if err != nil {
		return 0, fmt.Errorf("gamma: %w", err)
	}
	out[ix].ESS = []float64{elx, ex}
	out[ir].ESS = []float64{elr, er}
	return logZ, nil
}

// VMP: the message to x is (a − 1, −E r), to the rate (a, −E x);
// E log f = a E log r + (a−1) E log x − E r E x − log Γ(a).
func (k Gamma) VMP(y []float64, in []In, out []Out) (float64, error) {
	ix, ir := edgeIndex(in, "x"), edgeIndex(in, "rate")
	if in[ix].IsData() || in[ir].IsData() {
		return conjugateVMP(k, y, in, out)
	}
	if in[ix].ESS == nil || in[ir].ESS == nil {
		return 0, fmt.Errorf("gamma: the message to x needs E rate and the message to the rate E x: %w", families.ErrImproper)
	}
	a := dataOf(in, "shape")[0]
	la, _ := math.Lgamma(a)
	elx, ex := in[ix].ESS[0], in[ix].ESS[1]
	elr, er := in[ir].ESS[0], in[ir].ESS[1]
	out[ix].Nat = []float64{a - 1, -er}
	out[ir].Nat = []float64{a, -ex}
	return a*elr + (a-1)*elx - er*ex - la, nil
}
