package run

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/fgraph"
	"gonum.org/v1/gonum/mat"
)

// TestGatedRelaxedModel: relaxed_kl on the gated mixture (mixtureSrc's
// model) through compile and run equals infer/fgraph's relaxed EP on the
// same graph built by hand (to 1e-12: the same engine, so this checks the
// plumbing, the labels and the positions; the engine's numbers are pinned
// against quadrature in infer/fgraph's TestRelaxedGateAgainstQuadrature).
// With c = 0.01 only the ambiguous point y[5] = 0.1 is relaxed; with
// c = 1 no gate is and the result is ep with kl.
func TestGatedRelaxedModel(t *testing.T) {
	y := []float64{-2.5, -1.8, -2.2, 1.9, 2.4, 0.1, 2.8, -1.1, 1.5, 3.0}
	src := strings.Replace(mixtureSrc, "infer exact\ninfer ep { tol = 1e-10 }\ninfer mcmc { samples = 4000, seed = 14 }\n",
		"infer ep as r { divergence = relaxed_kl(c = 0.01), tol = 1e-10 }\ninfer ep as pruned { divergence = relaxed_kl(c = 1), tol = 1e-10 }\ninfer ep { tol = 1e-10 }\n", 1)
	rs, err := Run(context.Background(), compileSrc(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := fgraph.NewGraph(2)
	g.AddGaussian([]int{0}, []float64{1}, 0, -2, 1)
	g.AddGaussian([]int{1}, []float64{1}, 0, 2, 1)
	for _, yi := range y {
		z := g.AddDiscrete([]float64{0.4, 0.6})
		g.AddGate(z, yi, []fgraph.Branch{{Lik: ep.Gaussian{Var: 1}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Gaussian{Var: 1}, Vars: []int{1}, Coefs: []float64{1}}})
	}
	want, err := fgraph.Run(context.Background(), g, fgraph.Settings{Family: fgraph.Factorized,
		Settings: infer.Settings{Divergence: infer.RelaxedKL{C: 0.01}, Tol: 1e-10}})
	if err != nil || want.Status != infer.Converged {
		t.Fatalf("fgraph: %v %v", err, want.Status)
	}
	r := rs[0]
	if r.Status != infer.Converged || r.HasEvidence {
		t.Fatalf("relaxed: %v (%s), evidence %v", r.Status, r.Message, r.HasEvidence)
	}
	for k := range 2 {
		if !(math.Abs(r.Variables.At(0).Mean[k]-want.Mean[k]) <= 1e-12) || !(math.Abs(r.Variables.At(0).Var[k]-want.Var[k]) <= 1e-12) {
			t.Errorf("mu[%d]: %v ± %v, fgraph %v ± %v", k, r.Variables.At(0).Mean[k], r.Variables.At(0).Var[k], want.Mean[k], want.Var[k])
		}
	}
	if len(r.Relaxation) != 1 || r.Relaxation[0].Factor != "normal(y[5] | z[5])" || r.Relaxation[0].Pos != "test.fg:5:18" ||
		!(math.Abs(r.Relaxation[0].B-want.B[5]) <= 1e-12) || !(want.B[5] > 0) {
		t.Errorf("relaxations %+v, fgraph's weights %v", r.Relaxation, want.B)
	}
	pruned, kl := rs[1], rs[2]
	if len(pruned.Relaxation) != 0 || pruned.Status != infer.Converged {
		t.Errorf("c = 1: %v, relaxations %+v", pruned.Status, pruned.Relaxation)
	}
	for k := range 2 {
		if !(math.Abs(pruned.Variables.At(0).Mean[k]-kl.Variables.At(0).Mean[k]) <= 1e-9) {
			t.Errorf("c = 1: mu[%d] = %v, kl %v", k, pruned.Variables.At(0).Mean[k], kl.Variables.At(0).Mean[k])
		}
	}
}

// gatedClutter is Minka's clutter problem with explicit indicators c[i]
// (a gated likelihood) on the data at ±2 where EP with a fixed step
// oscillates.
const gatedClutter = `
data y: real[8] = [2, -2, 2, -2, 2, -2, 2, -2]
data v = [1, 10]
data a = [1, 0]
latent x: real ~ normal(0, 100)
latent c: cat(2)[8] ~ categorical([0.5, 0.5])
for i in 0..8 { y[i] ~ normal(a[c[i]] * x, v[c[i]]) }
`

// TestGatedRelaxedClutterOscillation: Minka's clutter problem with explicit
// indicators on data where EP with a fixed step oscillates (±2
// alternating, prior variance 100; see TestClutterEPNotConverged): kl
// with adapt_damping = false reaches the iteration limit,
// relaxed_kl(c = 1) converges, and with every weight pruned to 0 at the
// end, so that its answer is a fixed point of EP itself.
func TestGatedRelaxedClutterOscillation(t *testing.T) {
	src := gatedClutter + `infer ep { max_iter = 300, adapt_damping = false }
infer ep as relaxed { divergence = relaxed_kl(c = 1), max_iter = 300 }
`
	rs, err := Run(context.Background(), compileSrc(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status == infer.Converged {
		t.Errorf("kl converged: pick data where EP oscillates")
	}
	if rs[1].Status != infer.Converged || len(rs[1].Relaxation) != 0 {
		t.Errorf("relaxed_kl(c = 1): %v (%s), relaxations %+v", rs[1].Status, rs[1].Message, rs[1].Relaxation)
	}
}

// TestGatedRelaxedWithSite: relaxed_kl on a gated model that also has an
// ordinary (ungated) step site on a separate latent u ~ N(1.5, 1),
// mislabelled (y = −1): the site is relaxed as infer/ep relaxes it (u's
// marginal and its weight equal ep.Run on the one-site problem, to 1e-7),
// the mixture's gate y[5] keeps its weight from TestGatedRelaxedModel's
// model (the components are disconnected), and both are reported by label.
func TestGatedRelaxedWithSite(t *testing.T) {
	src := `
data y: real[10] = [-2.5, -1.8, -2.2, 1.9, 2.4, 0.1, 2.8, -1.1, 1.5, 3.0]
data s: spin[1] = [-1]
latent mu: real[2] ~ normal([-2, 2], 1)
latent u: real ~ normal(1.5, 1)
latent z: cat(2)[10] ~ categorical([0.4, 0.6])
for i in 0..10 { y[i] ~ normal(mu[z[i]], 1) }
s[0] ~ step(u, 0.05)
infer ep { divergence = relaxed_kl(c = 0.01), tol = 1e-12, max_iter = 1000 }
`
	rs, err := Run(context.Background(), compileSrc(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	lik := ep.Step{Eps: 0.05}
	want, err := ep.Run(context.Background(), &ep.Problem{Mean: []float64{1.5}, Cov: mat.NewSymDense(1, []float64{1}),
		Sites: []ep.Site{{Lik: lik, Y: -1, Proj: []float64{1}}}}, ep.Settings{Settings: infer.Settings{Divergence: infer.RelaxedKL{C: 0.01}, Tol: 1e-12, MaxIter: 1000}})
	if err != nil || want.Status != infer.Converged || r.Status != infer.Converged {
		t.Fatalf("ep %v %v; fg %v (%s)", err, want, r.Status, r.Message)
	}
	u := r.Variables.At(1)
	if u.Name != "u" || !(math.Abs(u.Mean[0]-want.Mean[0]) <= 1e-7) || !(math.Abs(u.Var[0]-want.Var[0]) <= 1e-7) {
		t.Errorf("u: %+v, ep %v ± %v", u, want.Mean[0], want.Var[0])
	}
	got := map[string]float64{}
	for _, x := range r.Relaxation {
		got[x.Factor] = x.B
	}
	if len(got) != 2 || !(math.Abs(got["step(s[0])"]-want.B[0]) <= 1e-7) || !(got["normal(y[5] | z[5])"] > 0) {
		t.Errorf("relaxations %+v, ep's site weight %v", r.Relaxation, want.B)
	}
}
