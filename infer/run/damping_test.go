package run

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
)

// probitRegression is a Gaussian block with probit sites; probitChain a
// random walk seen through probit labels (a factor graph, a tree).
const (
	probitRegression = `
data X: real[4, 2] = [[1, 0.5], [-0.3, 1], [0.7, -1.2], [2, 0.1]]
data y: spin[4] = [1, 1, -1, 1]
latent w: real[2] ~ normal(0, 2)
for i in 0..4 { y[i] ~ probit(dot(X[i], w)) }
`
	probitChain = `
data y: spin[6] = [1, 1, -1, 1, -1, -1]
latent x: real[6]
x[0] ~ normal(0, 1)
for t in 1..6 { x[t] ~ normal(x[t - 1], 0.5) }
for t in 0..6 { y[t] ~ probit(x[t]) }
`
)

// The models of TestDampingReachesEveryEngine, one per iterating engine,
// each with a {OPTS} placeholder for the infer line's options.
var dampingModels = []struct{ engine, src, line string }{
	{"infer/ep", probitRegression, "infer ep { {OPTS} }"},
	{"infer/ffep (fully factorised EP)", probitRegression, "infer ep { family = factorized, approx = exact, {OPTS} }"},
	{"infer/shard", probitRegression, "infer ep { shards = 2, {OPTS} }"},
	{"infer/tep", `
data X: real[5, 2] = [[-2, 1], [-1, 2], [1, -1], [2, -2], [3, 1]]
data y: spin[5] = [-1, -1, 1, 1, -1]
latent w: real[2] ~ student_t(5, 0, 1)
for i in 0..5 { y[i] ~ step(dot(X[i], w), 0.2) }
`, "infer ep { divergence = t(nu = 5), {OPTS} }"},
	{"infer/fgraph (joint family on a chain)", probitChain, "infer ep { {OPTS} }"},
	{"infer/fgraph (factorised family)", probitChain, "infer ep { family = factorized, {OPTS} }"},
	{"infer/stream", sparseTrain("probit(dot(X[i], w))"), "infer ep { {OPTS} }"},
	{"infer/bp", `
data h: real[3] = [0.3, -0.5, 0.8]
latent x: spin[3]
for i in 0..3 { factor field(x[i], h[i]) }
factor ising(x[0], x[1], 0.7)
factor ising(x[1], x[2], 0.7)
factor ising(x[2], x[0], 0.7)
`, "infer bp { {OPTS} }"},
}

// TestDampingReachesEveryEngine: the damping rule lives in infer.Iterate
// and infer.CheckDamping, and every iterating engine reaches it. For each
// engine (a model it serves): a damping below infer.MinDamping (1e-7,
// 1e-200) is refused at compile time at the option's position — before the
// floor, damping 1e-200 made EP and BP `converged` after one or two sweeps
// at the prior, since no message moved; at the floor, convergence is judged
// on the undamped change, so five sweeps end iteration_limit, never
// converged; a moderate damping still converges (the engine runs).
func TestDampingReachesEveryEngine(t *testing.T) {
	for _, m := range dampingModels {
		line := func(opts string) string { return m.src + strings.Replace(m.line, "{OPTS}", opts, 1) + "\n" }
		for _, tiny := range []string{"1e-7", "1e-200"} {
			_, err := compile.CompileSource("test.fg", []byte(line("damping = "+tiny)), compile.Options{})
			if err == nil || !strings.Contains(err.Error(), "is below") || !strings.Contains(err.Error(), "test.fg:") {
				t.Errorf("%s, damping %s: compile error %v, want a refusal with a position", m.engine, tiny, err)
			}
		}
		iters, long := "max_iter = 5", "max_iter = 500"
		if strings.Contains(m.src, "libsvm") {
			iters, long = "passes = 5", "passes = 500"
		}
		floor := runSrc(t, line(fmt.Sprintf("damping = %g, %s", infer.MinDamping, iters)))
		for _, r := range floor {
			if r.Status != infer.IterationLimit || r.Iterations != 5 {
				t.Errorf("%s, damping %g: %v after %d sweeps (%s), want iteration_limit after 5", m.engine, infer.MinDamping, r.Status, r.Iterations, r.Message)
			}
		}
		for _, r := range runSrc(t, line("damping = 0.5, "+long)) {
			if r.Status != infer.Converged {
				t.Errorf("%s, damping 0.5: %v (%s)", m.engine, r.Status, r.Message)
			}
		}
	}
}

// TestPriorsEnterUndamped: a prior is exact, not an approximation to be
// approached, so it enters every family undamped. Before, under
// family = factorized (and on chains under the joint family, which pass
// messages on a forest) the priors' and conditionals' first messages were
// damped from the flat message, and after a sweep at damping δ a normal(0, 1)
// prior read as variance ~1/δ (x[5] of the chain: ± 1.9e11 at δ = 1e-4).
// At the damping floor one sweep moves the sites by ~δ of their step, so
// every marginal is the prior's to within 1e-3 relative: var x[t] = 1 + 0.5 t
// on the random walk, 2 on the regression's weights.
func TestPriorsEnterUndamped(t *testing.T) {
	opts := fmt.Sprintf("damping = %g, max_iter = 1", infer.MinDamping)
	for _, m := range dampingModels {
		var prior func(i int) float64
		switch {
		case strings.Contains(m.src, "x[0] ~ normal(0, 1)"):
			prior = func(i int) float64 { return 1 + 0.5*float64(i) }
		case strings.Contains(m.src, "normal(0, 2)") && !strings.Contains(m.line, "shards"):
			prior = func(int) float64 { return 2 }
		default:
			continue
		}
		for _, r := range runSrc(t, m.src+strings.Replace(m.line, "{OPTS}", opts, 1)+"\n") {
			if r.Status == infer.Converged || !r.Status.HasNumbers() || r.Variables.Len() == 0 {
				t.Fatalf("%s: %v (%s)", m.engine, r.Status, r.Message)
			}
			for i, v := range r.Variables.At(0).Var {
				if !(math.Abs(v/prior(i)-1) <= 1e-3) {
					t.Errorf("%s: var %s[%d] = %g after one sweep, prior %g", m.engine, r.Variables.At(0).Name, i, v, prior(i))
				}
			}
		}
	}
}
