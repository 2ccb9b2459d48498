package mp

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/graph"
)

// evidenceAt is the converged evidence of net with factor fi's data
// numbers moved by s·d.
func evidenceAt(t *testing.T, net *graph.Net, alpha float64, fi int, d []float64, s float64) float64 {
	t.Helper()
	moved := *net
	moved.Factors = append([]graph.NetFactor(nil), net.Factors...)
	x := net.Factors[fi].Data()
	for i := range x {
		x[i] += s * d[i]
	}
	moved.Factors[fi] = net.Factors[fi].WithData(x)
	return run(t, &moved, alpha).LogEvidence
}

// TestRunGradMeanPrec: on the mean–precision model (μ ~ N(m0, v0),
// τ ~ Gamma(a0, b0), x_n ~ N(μ, 1/τ); EP, power EP and VMP are
// approximate there) the evidence gradient of RunGrad in m0, v0, a0 and
// b0 — and in one direction mixing two factors — equals the central
// differences (step 10⁻⁴) of the evidence converged to 10⁻¹² at moved
// data, to 10⁻⁵ relative.
func TestRunGradMeanPrec(t *testing.T) {
	net, _, _ := meanPrecNet()
	tangents := [][]Tangent{
		{{Factor: 0, D: []float64{1, 0}}}, // m0
		{{Factor: 0, D: []float64{0, 1}}}, // v0
		{{Factor: 1, D: []float64{1, 0}}}, // a0
		{{Factor: 1, D: []float64{0, 1}}}, // b0
		{{Factor: 0, D: []float64{0, 2}}, {Factor: 1, D: []float64{0, -1}}},
	}
	for _, d := range divergences {
		res, grad, err := RunGrad(context.Background(), net, Options{Alpha: d.alpha, Tol: 1e-12, MaxIter: 200}, tangents)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.String() != "converged" {
			t.Fatalf("%s: %v %s", d.name, res.Status, res.Message)
		}
		const h = 1e-4
		for k, ts := range tangents {
			var fd float64
			for _, tg := range ts {
				fd += (evidenceAt(t, net, d.alpha, tg.Factor, tg.D, h) - evidenceAt(t, net, d.alpha, tg.Factor, tg.D, -h)) / (2 * h)
			}
			if !(math.Abs(grad[k]-fd) <= 1e-5*math.Max(1e-3, math.Abs(fd))) {
				t.Errorf("%s: ∂/∂θ%d = %.10g, central differences of the converged evidence %.10g", d.name, k, grad[k], fd)
			}
		}
	}
}
