package run

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
)

// probitWalkData is probitWalkLabels as an fg data line.
func probitWalkData(T int, q float64) string {
	ys := make([]string, T+1)
	for t, y := range testkit.ProbitWalkLabels(T, q) {
		ys[t] = strconv.FormatFloat(y, 'g', -1, 64)
	}
	return fmt.Sprintf("data y: spin[%d] = [%s]\n", T+1, strings.Join(ys, ", "))
}

// probitWalkChain is the walk with probit labels as RxInfer users write it:
// a conditional per step and a site per label (a factor graph, infer/fgraph).
func probitWalkChain(T int, q float64, infers string) string {
	return probitWalkData(T, q) + fmt.Sprintf(`latent x: real[%d]
x[0] ~ normal(0, 1)
for t in 1..%d { x[t] ~ normal(x[t-1], %g) }
for t in 0..%d { y[t] ~ probit(x[t]) }
%s`, T+1, T+1, q, T+1, infers)
}

// probitWalkBlock is the same model as one Gaussian block: the walk's prior
// covariance K[i, j] = 1 + q·min(i, j) with the probit sites on its
// elements (the block engine, infer/ep).
func probitWalkBlock(T int, q float64, infers string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "data K: real[%d, %d] = [", T+1, T+1)
	for i := 0; i <= T; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		for j := 0; j <= T; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(1+q*float64(min(i, j)), 'g', -1, 64))
		}
		b.WriteByte(']')
	}
	b.WriteString("]\n")
	return probitWalkData(T, q) + b.String() + fmt.Sprintf(`latent x: real[%d] ~ mvnormal(0, K)
for t in 0..%d { y[t] ~ probit(x[t]) }
%s`, T+1, T+1, infers)
}

// The 500-step probit walk written as a chain converges under the default
// infer line (sequential EP on the forest: each site updated from the
// exact marginal given the other sites, in both passes) and equals the same
// model written as one Gaussian block, solved by infer/ep's sequential EP
// on the dense joint: every mean and variance to 1e-6 and log Z to 1e-6.
// Parallel EP on the chain oscillated for ever here.
func TestProbitWalkChainEqualsBlock(t *testing.T) {
	const T, q = 500, 0.1
	chain := runSrc(t, probitWalkChain(T, q, "infer ep\ninfer ep as tight { tol = 1e-10 }\n"))
	block := runSrc(t, probitWalkBlock(T, q, "infer ep as tight { tol = 1e-10 }\n"))
	if r := chain["ep"]; r.Status != infer.Converged {
		t.Fatalf("chain, default line: %v (%s)", r.Status, r.Message)
	}
	c, b := chain["tight"], block["tight"]
	if c.Status != infer.Converged || b.Status != infer.Converged {
		t.Fatalf("chain %v (%s), block %v (%s)", c.Status, c.Message, b.Status, b.Message)
	}
	cx, bx := findVar(c, "x"), findVar(b, "x")
	dm, dv := 0.0, 0.0
	for i := range cx.Mean {
		dm = math.Max(dm, math.Abs(cx.Mean[i]-bx.Mean[i]))
		dv = math.Max(dv, math.Abs(cx.Var[i]-bx.Var[i]))
	}
	t.Logf("chain %d passes (default line %d), block %d sweeps; max |Δ mean| %.2g, max |Δ var| %.2g, log Z %.10g / %.10g",
		c.Iterations, chain["ep"].Iterations, b.Iterations, dm, dv, c.LogEvidence, b.LogEvidence)
	if !(dm <= 1e-6) || !(dv <= 1e-6) {
		t.Errorf("chain and block differ: max |Δ mean| %g, max |Δ var| %g", dm, dv)
	}
	if !c.HasEvidence || !b.HasEvidence || !(math.Abs(c.LogEvidence-b.LogEvidence) <= 1e-6) {
		t.Errorf("log Z: chain %.10g (%v), block %.10g (%v)", c.LogEvidence, c.HasEvidence, b.LogEvidence, b.HasEvidence)
	}
}

// A 5000-step probit walk converges under the default infer line.
func TestProbitWalk5000Converges(t *testing.T) {
	r := runSrc(t, probitWalkChain(5000, 0.1, "infer ep\n"))["ep"]
	if r.Status != infer.Converged || r.Warnings != nil {
		t.Fatalf("%v (%s), warnings %v", r.Status, r.Message, r.Warnings)
	}
	t.Logf("converged after %d passes", r.Iterations)
}

// EP's fixed point on the 500-step walk (the chain's and the block's, equal
// to 1e-11) against the exact posterior (gridSmoother): in the long
// stretches of equal labels the posterior of the walk is far from Gaussian
// (a path held on one side of zero by many weak constraints) and EP
// underestimates its variance — x[486]: EP 6.10 ± var 3.55, exact 5.97 ±
// 5.53; mcmc (elliptical slice, 4 × 40000 draws, seed 1) 5.98 ± 5.62, so EP
// lies up to 4.2 MCSE from mcmc in a mean and 9.0 in a variance while the
// exact posterior lies within 3.4 and 3.0. Measured: max |Δ mean| 0.137,
// max |var/exact − 1| 0.363; the test holds EP to 1.5 times those errors
// and the informative start of the walk (x[0], exact 0.1731 ± 0.2648) to
// 1e-3.
func TestProbitWalkEPAgainstExact(t *testing.T) {
	const T, q = 500, 0.1
	r := runSrc(t, probitWalkChain(T, q, "infer ep\n"))["ep"]
	if r.Status != infer.Converged {
		t.Fatalf("%v (%s)", r.Status, r.Message)
	}
	mean, vr := testkit.GridSmoother(testkit.ProbitWalkLabels(T, q), q, -20, 25, 0.02)
	x := findVar(r, "x")
	dm, rv, worst := 0.0, 0.0, 0
	for i := range mean {
		dm = math.Max(dm, math.Abs(x.Mean[i]-mean[i]))
		if e := math.Abs(x.Var[i]/vr[i] - 1); e > rv || math.IsNaN(e) {
			rv, worst = e, i
		}
	}
	t.Logf("EP against exact: max |Δ mean| %.3f, max |var/exact − 1| %.3f at x[%d] (EP %.3f, exact %.3f)", dm, rv, worst, x.Var[worst], vr[worst])
	if !(dm <= 1.5*0.137) || !(rv <= 1.5*0.363) {
		t.Errorf("EP further from the exact posterior than measured: |Δ mean| %.3f, |var/exact − 1| %.3f", dm, rv)
	}
	if !(math.Abs(x.Mean[0]-mean[0]) <= 1e-3) || !(math.Abs(x.Var[0]-vr[0]) <= 1e-3) {
		t.Errorf("x[0]: EP %.5f ± %.5f, exact %.5f ± %.5f", x.Mean[0], x.Var[0], mean[0], vr[0])
	}
}

// The 500-step probit walk under `infer mcmc`: the chain's sampler is
// particle Gibbs (its option `sampler` says so). Against the exact
// posterior (testkit.GridSmoother) every element's mean and variance lie
// within 4 Monte Carlo standard errors, the saturated end (x[486], exact
// 5.97 ± var 5.53) included, with split R-hat ≤ 1.01 and bulk ESS ≥ 400
// at 4 × 1000 draws after 200 burn-in sweeps. EP against the same mcmc
// run: EP's fixed point is not the exact posterior (TestProbitWalkEPAgainstExact
// measured max |Δ mean| 0.137 and max |var/exact − 1| 0.363, where labels
// saturate), so EP is held to mcmc within 4 MCSE plus 1.5 times those
// measured errors — a bound that fails if EP moves further from the exact
// posterior or mcmc from EP by more than its noise — and x[0], where the
// two agree with the exact posterior to 1e-3, within 4 MCSE + 1e-3.
func TestProbitWalkMCMC(t *testing.T) {
	if testing.Short() {
		t.Skip("4 × 1200 particle Gibbs sweeps of 501 elements")
	}
	const T, q = 500, 0.1
	rs := runSrc(t, probitWalkChain(T, q, "infer ep\ninfer mcmc { samples = 1000, burnin = 200 }\n"))
	r, e := rs["mcmc"], rs["ep"]
	if r.Status != infer.Done || e.Status != infer.Converged {
		t.Fatalf("mcmc %v (%s), ep %v", r.Status, r.Message, e.Status)
	}
	if r.Options["sampler"] != samplerParticleGibbs || len(r.Warnings) > 0 {
		t.Errorf("sampler %q, warnings %v", r.Options["sampler"], r.Warnings)
	}
	mean, vr := testkit.GridSmoother(testkit.ProbitWalkLabels(T, q), q, -20, 25, 0.02)
	x, ex := findVar(r, "x"), findVar(e, "x")
	zm, zv, minESS, maxR := mcmcAgainstExact(t, x, mean, vr, 4)
	for i := range mean {
		tolM, tolV := 4*x.MeanSE[i]+1.5*0.137, 4*x.VarSE[i]/x.Var[i]+1.5*0.363
		if i == 0 {
			tolM, tolV = 4*x.MeanSE[0]+1e-3, 4*x.VarSE[0]/x.Var[0]+1e-3/x.Var[0]
		}
		if !(math.Abs(ex.Mean[i]-x.Mean[i]) <= tolM) || !(math.Abs(ex.Var[i]/x.Var[i]-1) <= tolV) {
			t.Errorf("x[%d]: ep %.4f ± %.4f, mcmc %.4f ± %.4f (MCSE %.2g, %.2g)", i, ex.Mean[i], ex.Var[i], x.Mean[i], x.Var[i], x.MeanSE[i], x.VarSE[i])
		}
	}
	if !(minESS >= 400) || !(maxR <= 1.01) {
		t.Errorf("min bulk ESS %.0f, max R-hat %.4f", minESS, maxR)
	}
	t.Logf("mcmc against exact: max |z| mean %.2f, var %.2f; min ESS %.0f, max R-hat %.4f; x[486] mcmc %.3f ± %.3f, exact %.3f ± %.3f, ep %.3f ± %.3f",
		zm, zv, minESS, maxR, x.Mean[486], x.Var[486], mean[486], vr[486], ex.Mean[486], ex.Var[486])
}

// The 5000-step probit walk against its exact posterior (a grid
// forward–backward, testkit.GridSmoother, on a grid wide enough for the
// whole path) under ep and mcmc. mcmc (particle Gibbs, 4 × 1000 draws after
// 200 burn-in sweeps) must hold every element's mean and variance within
// 4.9 Monte Carlo standard errors of the exact posterior (two-sided 1e-6 a
// check, 10⁴ checks: a false alarm once in a hundred runs) with split
// R-hat ≤ 1.01. EP's fixed point is not the exact posterior where labels
// saturate (TestProbitWalkEPAgainstExact); here it is held to 1.5 times
// its measured errors on this walk (max |Δ mean| walkMeanErr5000, max
// |var/exact − 1| walkVarErr5000), a bound that fails if EP moves away
// from the exact posterior.
func TestProbitWalk5000AgainstExact(t *testing.T) {
	if testing.Short() {
		t.Skip("4 × 1200 particle Gibbs sweeps of 5001 elements and a 5000-step grid smoother")
	}
	const T, q = 5000, 0.1
	rs := runSrc(t, probitWalkChain(T, q, "infer ep\ninfer mcmc { samples = 1000, burnin = 200 }\n"))
	r, e := rs["mcmc"], rs["ep"]
	if r.Status != infer.Done || e.Status != infer.Converged {
		t.Fatalf("mcmc %v (%s), ep %v (%s)", r.Status, r.Message, e.Status, e.Message)
	}
	x, ex := findVar(r, "x"), findVar(e, "x")
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range ex.Mean {
		s := 8 * math.Sqrt(ex.Var[i])
		lo, hi = math.Min(lo, ex.Mean[i]-s), math.Max(hi, ex.Mean[i]+s)
	}
	mean, vr := testkit.GridSmoother(testkit.ProbitWalkLabels(T, q), q, math.Floor(lo), math.Ceil(hi), 0.02)
	zm, zv, minESS, maxR := mcmcAgainstExact(t, x, mean, vr, 4.9)
	dm, rv := 0.0, 0.0
	for i := range mean {
		dm = math.Max(dm, math.Abs(ex.Mean[i]-mean[i]))
		if d := math.Abs(ex.Var[i]/vr[i] - 1); d > rv || math.IsNaN(d) {
			rv = d
		}
	}
	t.Logf("grid [%.0f, %.0f]; mcmc against exact: max |z| mean %.2f, var %.2f; min ESS %.0f, max R-hat %.4f; EP against exact: max |Δ mean| %.4f, max |var/exact − 1| %.4f",
		math.Floor(lo), math.Ceil(hi), zm, zv, minESS, maxR, dm, rv)
	if !(maxR <= 1.01) {
		t.Errorf("max R-hat %.4f", maxR)
	}
	if !(dm <= 1.5*walkMeanErr5000) || !(rv <= 1.5*walkVarErr5000) {
		t.Errorf("EP further from the exact posterior than measured: |Δ mean| %.4f, |var/exact − 1| %.4f", dm, rv)
	}
}

// EP's measured errors against the exact posterior on the 5000-step walk
// (TestProbitWalk5000AgainstExact, grid [-20, 57], h = 0.02; mcmc within
// 3.13 and 2.94 MCSE of the grid, R-hat 1.0032, min ESS 1448): the walk
// saturates for longer than the 500-step one (|Δ mean| 0.137 there), where
// the posterior of the path is far from Gaussian and EP's mean lags it.
const walkMeanErr5000, walkVarErr5000 = 2.184, 0.4931

// mcmcAgainstExact requires every element of mcmc's x within zmax Monte
// Carlo standard errors of the exact posterior mean and variance, and
// returns the largest |z| of means and variances, the smallest bulk ESS
// and the largest split R-hat.
func mcmcAgainstExact(t *testing.T, x *infer.Variable, mean, vr []float64, zmax float64) (zm, zv, minESS, maxR float64) {
	t.Helper()
	minESS = math.Inf(1)
	for i := range mean {
		a, b := math.Abs(x.Mean[i]-mean[i])/x.MeanSE[i], math.Abs(x.Var[i]-vr[i])/x.VarSE[i]
		zm, zv = math.Max(zm, a), math.Max(zv, b)
		minESS, maxR = math.Min(minESS, x.ESS[i]), math.Max(maxR, x.RHat[i])
		if !(a <= zmax) || !(b <= zmax) {
			t.Errorf("x[%d]: mcmc %.4f ± %.4f (MCSE %.2g, %.2g), exact %.4f ± %.4f", i, x.Mean[i], x.Var[i], x.MeanSE[i], x.VarSE[i], mean[i], vr[i])
		}
	}
	return zm, zv, minESS, maxR
}
