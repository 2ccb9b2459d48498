package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/mathx"
)

// constStepGate is x ~ N(0.5, 4), z ~ Categorical(½, ½) selecting
// step(−1 | x, 0.05) or the constant step(−1 | 0.3, 0.2) (a branch on no
// variable, whose step closed form would divide by √0).
func constStepGate() *Graph {
	g := NewGraph(1)
	g.AddGaussian([]int{0}, []float64{1}, 0, 0.5, 4)
	z := g.AddDiscrete([]float64{0.5, 0.5})
	g.AddGate(z, -1, []Branch{{Lik: ep.Step{Eps: 0.05}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Step{Eps: 0.2}, C: 0.3}})
	return g
}

// TestGateConstantStepBranch: with one gate EP is exact, so x's mean and
// variance, p(z) and log Z equal the exact posterior written with
// truncated-normal moments (x = m + s t, the step correct for t < a =
// −m/s: ∫ φ = Φ(a), ∫ t φ = −φ(a), ∫ t² φ = Φ(a) − a φ(a)), to 1e-12;
// relaxed_kl relaxes the gate (b > 0) and a large c gives kl exactly.
func TestGateConstantStepBranch(t *testing.T) {
	const m, v, e0, e1, p = 0.5, 4.0, 0.05, 0.2, 0.5
	s, a := math.Sqrt(v), -0.5/2.0
	P, phi := mathx.Phi(a), math.Exp(-a*a/2)/math.Sqrt(2*math.Pi)
	T0, T1, T2 := P, -phi, P-a*phi // ∫ over t < a of t^k φ(t)
	// ∫ f0(x) N(x; m, v) x^k dx with f0 = ε + (1 − 2ε)·1[x ≤ 0].
	Z0 := e0 + (1-2*e0)*T0
	M1 := e0*m + (1-2*e0)*(m*T0+s*T1)
	M2 := e0*(m*m+v) + (1-2*e0)*(m*m*T0+2*m*s*T1+v*T2)
	w1 := e1 // the constant branch: step(−1 | 0.3) = ε₁
	Z := p*Z0 + p*w1
	mean := (p*M1 + p*w1*m) / Z
	vr := (p*M2+p*w1*(m*m+v))/Z - mean*mean
	pz1 := p * w1 / Z
	res, err := Run(context.Background(), constStepGate(), Settings{Family: Factorized, Settings: infer.Settings{Tol: 1e-12}})
	if err != nil || res.Status != infer.Converged || !res.HasLogZ {
		t.Fatalf("%v %+v", err, res)
	}
	if !(math.Abs(res.Mean[0]-mean) <= 1e-12) || !(math.Abs(res.Var[0]-vr) <= 1e-12) || !(math.Abs(res.Prob[0][1]-pz1) <= 1e-12) ||
		!(math.Abs(res.LogZ-math.Log(Z)) <= 1e-12) {
		t.Errorf("ep %v ± %v, p %v, log Z %v; exact %v ± %v, p %v, log Z %v", res.Mean[0], res.Var[0], res.Prob[0][1], res.LogZ, mean, vr, pz1, math.Log(Z))
	}
	rx, err := Run(context.Background(), constStepGate(), Settings{Family: Factorized, Settings: infer.Settings{Divergence: infer.RelaxedKL{C: 0.01}, Tol: 1e-10, MaxIter: 500}})
	if err != nil || rx.Status != infer.Converged || !(rx.B[0] > 0) {
		t.Errorf("relaxed: %v %+v", err, rx)
	}
	big, err := Run(context.Background(), constStepGate(), Settings{Family: Factorized, Settings: infer.Settings{Divergence: infer.RelaxedKL{C: 1e6}, Tol: 1e-12}})
	if err != nil || big.B[0] != 0 || !(math.Abs(big.Mean[0]-res.Mean[0]) <= 1e-12) || !(math.Abs(big.Var[0]-res.Var[0]) <= 1e-12) {
		t.Errorf("relaxed, c = 1e6: %v %+v", err, big)
	}
}
