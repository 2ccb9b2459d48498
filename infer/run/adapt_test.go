package run

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// Models on which the full step does not settle: a two-component mixture
// with Dirichlet weights on three clusters (the typed factor graph,
// infer/mp), and step sites with label noise on contradicting labels under
// a Student-t prior (t-EP).
const (
	netMixture = `
data y = [0.1, -0.2, 3.1, -2.9, 0.05, 2.8, -3.2, 0.0]
latent w: real[2] ~ dirichlet([1, 1])
latent mu: real[2] ~ normal(0, 100)
latent z: cat(2)[len(y)]
for i in 0..len(y) {
  z[i] ~ categorical(w)
  y[i] ~ normal(mu[z[i]], 1)
}
`
	// shardClash: a location w seen through Student-t noise by four
	// observations at +2 and four at −2, cut into two shards that disagree.
	// Each shard's local EP pulls w to its side, and the two shard sites,
	// updated from the same global posterior, overshoot each other: at
	// damping 1 their negative curvatures make the global posterior
	// improper at iteration 2; at damping 0.7 the iteration cycles.
	shardClash = `
data X: real[8, 1] = [[1], [1], [1], [1], [1], [1], [1], [1]]
data y: real[8] = [2, 2, 2, 2, -2, -2, -2, -2]
latent w: real[1] ~ normal(0, 100)
for i in 0..8 { y[i] ~ student_t(4, dot(X[i], w), 1) }
`
	// residualClash: a chain of three strongly coupled states seen
	// through Student-t noise by observations alternating at ±3, on which
	// fgraph's residual schedule with the full step stops decreasing.
	residualClash = `
data y: real[8] = [3, -3, 3, -3, 3, -3, 3, -3]
data idx: int[8] = [0, 1, 2, 0, 1, 2, 0, 1]
latent x: real[3]
x[0] ~ normal(0, 100)
x[1] ~ normal(x[0], 0.01)
x[2] ~ normal(x[1], 0.01)
for i in 0..8 { y[i] ~ student_t(4, x[idx[i]], 1) }
`
	tepSteps = `
data X: real[8, 1] = [[1], [1], [1], [1], [-1], [-1], [-1], [-1]]
data y: spin[8] = [1, 1, 1, -1, 1, -1, -1, -1]
latent w: real[1] ~ student_t(3, 0, 100)
for i in 0..8 { y[i] ~ step(dot(X[i], w), 0.05) }
`
)

// sparseTrain is a model streamed from data/sparse/sparse_train.svm (a
// libsvm block, infer/stream) with the site written y[i] ~ site.
func sparseTrain(site string) string {
	return `
data X = libsvm("../../data/sparse/sparse_train.svm")
data y = libsvm_labels("../../data/sparse/sparse_train.svm")
latent w: real[cols(X)] ~ normal(0, 1)
for i in 0..len(y) { y[i] ~ ` + site + ` }
`
}

// TestAdaptedStepReachesEngines: for each iterating engine, a model on
// which the full step does not settle is run twice, with adapt_damping =
// false and with the default. Until the first adaptation the two runs are
// the same computation, so their residuals R agree to the last bit; at the
// sweep after it the adaptive run moved its messages by the new step δ. An
// engine that ignored the driver's step would make the fixed run's move
// while the driver divided it by δ: its R would be exactly R_fixed/δ. So R
// must differ from both R_fixed and R_fixed/δ there — the step reached the
// engine's updates.
func TestAdaptedStepReachesEngines(t *testing.T) {
	clutter := clutterSrc([]float64{2, -2, 2, -2, 2, -2, 2, -2}, 100, "")
	for _, c := range []struct{ engine, src, opts string }{
		{"infer/ep", clutter, "max_iter = 100"},
		{"infer/ffep", clutter, "family = factorized, max_iter = 100"},
		{"infer/fgraph (gated, joint family)", gatedClutter, "max_iter = 100"},
		{"infer/fgraph (gated, factorised family)", gatedClutter, "family = factorized, max_iter = 100"},
		{"infer/tep", tepSteps, "divergence = t(nu = 3), max_iter = 100"},
		{"infer/mp", netMixture, "max_iter = 100"},
		{"infer/stream", sparseTrain("step(dot(X[i], w), 0.1)"), "passes = 60"},
		{"infer/shard", shardClash, "shards = 2, damping = 0.7, max_iter = 130"},
		{"infer/fgraph (residual schedule)", residualClash, "family = factorized, schedule = residual, max_iter = 100"},
		{"infer/bp", `
data G = libdai("../../data/reference/libdai/ising_grid10x10_w1_seed2.fg")
latent x: spin[nodes(G)]
factor factors(G, x)
`, "max_iter = 100"},
	} {
		method := "ep"
		if c.engine == "infer/bp" {
			method = "bp"
		}
		src := c.src + "infer " + method + " as fixed { " + c.opts + ", adapt_damping = false }\ninfer " + method + " as adaptive { " + c.opts + " }\n"
		rs, err := Run(context.Background(), compileSrc(t, src), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.engine, err)
		}
		fixed, adaptive := rs[0], rs[1]
		if len(adaptive.Adapted) == 0 {
			t.Errorf("%s: no adaptation (%v, %s)", c.engine, adaptive.Status, adaptive.Message)
			continue
		}
		a := adaptive.Adapted[0]
		s := a.Sweep // R of sweep s is Trace[s−1]; sweep s+1 ran with step a.To
		if len(fixed.Trace) <= s || len(adaptive.Trace) <= s {
			t.Errorf("%s: traces of %d and %d sweeps, adaptation after %d", c.engine, len(fixed.Trace), len(adaptive.Trace), s)
			continue
		}
		for k := range s {
			if fixed.Trace[k] != adaptive.Trace[k] {
				t.Errorf("%s: sweep %d: R %g fixed, %g adaptive, before any adaptation", c.engine, k+1, fixed.Trace[k], adaptive.Trace[k])
				break
			}
		}
		rf, ra := fixed.Trace[s], adaptive.Trace[s]
		ignored := rf * a.From / a.To
		if ra == rf || math.Abs(ra-ignored) <= 1e-12*ignored {
			t.Errorf("%s: sweep %d after %v: R %g adaptive, %g fixed (%g if the step were ignored)", c.engine, s+1, a, ra, rf, ignored)
		}
		t.Logf("%s: %v; sweep %d: R %.6g adaptive, %.6g fixed; %v / %v", c.engine, a, s+1, ra, rf, adaptive.Status, fixed.Status)
	}
}

// TestShardClashRetried: sharded EP on shardClash. With a fixed step the
// two shard sites make the global posterior improper at iteration 2 and
// the run ends diverged; by default that iteration is undone and repeated
// at step 0.5, and the run
// converges to full EP's fixed point (sequential EP on the same sites,
// which sharded EP shares): mean and variance of w within 1e-8 relative to
// its sd and variance, and log Z, at tol 1e-10 (about 300 iterations of two
// local EP runs, 13 s; under -short only the fixed step is run).
func TestShardClashRetried(t *testing.T) {
	rs := runSrc(t, shardClash+`
infer ep as fixed { shards = 2, adapt_damping = false }
`)
	if r := rs["fixed"]; r.Status != infer.Diverged || r.Iterations != 2 || !strings.Contains(r.Message, "global posterior is not positive definite") {
		t.Errorf("fixed: %v after %d iterations: %q", r.Status, r.Iterations, r.Message)
	}
	if testing.Short() {
		return
	}
	rs = runSrc(t, shardClash+`
infer ep as retried { shards = 2, tol = 1e-10, max_iter = 500 }
infer ep as full { tol = 1e-10, max_iter = 500 }
`)
	checkRetried(t, rs["retried"], rs["full"], 2, 1e-8)
}
