package compile

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families/gauss"
	"github.com/fg-infer/fg/graph"
)

// TestJointPrior checks the joint prior of a block (x0, x1) ~ N(m, K), a
// conditional x2 ~ N(0.5 x0 − x1 + 3, 0.3) and x3 ~ N(2 x2, 0.1), listed
// before its parent's conditional, against the closed form of the linear
// map x2 = 0.5 x0 − x1 + 3 + ε2, x3 = 2 x2 + ε3 (to 1e-12), and that a
// singular block is jittered by gauss.CholeskyJitter's δ, reported.
func TestJointPrior(t *testing.T) {
	fg := &FactorGraph{NumVars: 4, First: []int{0}}
	fg.Dense = []*graph.Block{{Latent: 0, Name: "x", First: 0, N: 2, Prior: graph.Prior{Kind: factor.MVNormal{},
		Mean: []float64{1, -1}, Cov: mat.NewSymDense(2, []float64{2, 0.5, 0.5, 1})}}}
	fg.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{3, 2}, Coefs: []float64{1, -2}}, Var: 0.1, Target: 3})
	fg.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{2, 0, 1}, Coefs: []float64{1, -0.5, 1}, Const: -3}, Var: 0.3, Target: 2})
	mean, cov, jitter, err := fg.JointPrior()
	if err != nil || jitter != 0 {
		t.Fatal(err, jitter)
	}
	wantMean := []float64{1, -1, 4.5, 9}
	wantCov := [][]float64{
		{2, 0.5, 0.5, 1},
		{0.5, 1, -0.75, -1.5},
		{0.5, -0.75, 1.3, 2.6},
		{1, -1.5, 2.6, 5.3},
	}
	for i := range 4 {
		if !scalar.EqualWithinAbsOrRel(mean[i], wantMean[i], 1e-12, 1e-12) {
			t.Errorf("mean[%d] = %g, want %g", i, mean[i], wantMean[i])
		}
		for j := range 4 {
			if !scalar.EqualWithinAbsOrRel(cov.At(i, j), wantCov[i][j], 1e-12, 1e-12) {
				t.Errorf("cov[%d, %d] = %g, want %g", i, j, cov.At(i, j), wantCov[i][j])
			}
		}
	}

	singular := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	fg.Dense[0].Prior.Cov = singular
	_, cov, jitter, err = fg.JointPrior()
	_, delta, jerr := gauss.CholeskyJitter(singular)
	if err != nil || jerr != nil || !(delta > 0) || jitter != delta || cov.At(0, 0) != 1+delta || cov.At(0, 1) != 1 {
		t.Errorf("singular block: jitter %g (want %g), cov %v, errors %v %v", jitter, delta, mat.Formatted(cov), err, jerr)
	}
}
