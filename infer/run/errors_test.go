package run

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
)

func TestFillErrors(t *testing.T) {
	gold := &infer.Result{Method: "exact", Label: "exact", Status: infer.Done, HasEvidence: true, LogEvidence: -2,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Mean: []float64{1, 2}, Var: []float64{0.5, 0.25}}}...)}
	ep := &infer.Result{Method: "ep", Label: "ep", Status: infer.Converged, HasEvidence: true, LogEvidence: -2.5,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Mean: []float64{1.5, 1}, Var: []float64{0.5, 0.75}}}...)}
	rep := &infer.Result{Method: "ep", Label: "rep", Status: infer.Converged,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Mean: []float64{1, 2}, Var: []float64{0.5, 0.25}}}...)}
	FillErrors([]*infer.Result{ep, gold, rep})
	if gold.Errors != nil {
		t.Fatal("gold standard got errors against itself")
	}
	e := ep.Errors
	// By hand: |1.5−1|, |1−2| → 0.75; |0|, |0.75−0.25| → 0.25; |−2.5+2| = 0.5.
	if e.Reference != "exact" || !e.HasMean || !(math.Abs(e.MeanMAE-0.75) <= 1e-15) ||
		!(math.Abs(e.VarMAE-0.25) <= 1e-15) || !e.HasLogZ || !(math.Abs(e.LogZAbs-0.5) <= 1e-15) || e.HasProb {
		t.Fatalf("errors = %+v", e)
	}
	if rep.Errors.HasLogZ || rep.Errors.MeanMAE != 0 {
		t.Fatalf("rep errors = %+v", rep.Errors)
	}
}

func TestFillErrorsNoGold(t *testing.T) {
	ep := &infer.Result{Method: "ep", Status: infer.Converged}
	failed := &infer.Result{Method: "exact", Status: infer.Failed}
	FillErrors([]*infer.Result{ep, failed})
	if ep.Errors != nil {
		t.Fatal("errors against a failed gold standard")
	}
}

// findVar finds the first variable of r called name (nil if none).
func findVar(r *infer.Result, name string) *infer.Variable {
	if v, ok := r.Variables.Find(name); ok {
		return &v
	}
	return nil
}

// TestFlagApartMinorMode: EP on a two-component mixture (Minka's clutter
// likelihood) whose four positive readings come first settles in the minor
// mode (x ≈ 5.04 ± 0.53, converged) while exact puts x at −4.06 ± 0.54:
// the run warns on the ep line, naming x and both answers. A line close to
// exact (the Gaussian readings alone) gets no such warning.
func TestFlagApartMinorMode(t *testing.T) {
	rs := runSrc(t, `
data y: real[12] = [5.0, 5.1, 4.9, 5.2, -4.4, -3.8, -4.1, -4.5, -3.9, -4.2, -4.0, -3.7]
latent x: real ~ normal(0, 100)
for i in 0..12 { y[i] ~ mixture([0.5, 0.5], normal(x, 1), normal(0, 10)) }
infer ep
infer exact
`)
	ep, ex := rs["ep"], rs["exact"]
	if ep.Status != infer.Converged || !(ep.Variables.At(0).Mean[0] > 4) || !(ex.Variables.At(0).Mean[0] < -3) {
		t.Fatalf("ep %v at %v, exact at %v: not the minor-mode case", ep.Status, ep.Variables.At(0).Mean, ex.Variables.At(0).Mean)
	}
	if !hasWarning(ep, "x is 5.036 ± 0.5347 here and -4.057 ± 0.5397 under `exact` (their ±2 sd intervals do not overlap)") || hasWarning(ex, "different answers") {
		t.Errorf("warnings: ep %v, exact %v", ep.Warnings, ex.Warnings)
	}
	rs = runSrc(t, `
data y: real[3] = [0.3, 1.2, -0.4]
latent x: real ~ normal(0, 4)
for i in 0..3 { y[i] ~ student_t(4, x, 0.5) }
infer ep
infer exact
`)
	if hasWarning(rs["ep"], "different answers") || hasWarning(rs["exact"], "different answers") {
		t.Errorf("close lines flagged: %v %v", rs["ep"].Warnings, rs["exact"].Warnings)
	}
}

// TestFlagApart: opposite labellings of a discrete latent (p = 0.01 and
// 0.99 under two EP divergences) are flagged on the later line with a
// hint to compare with a gold standard; |Δp| = 0.49 (0.99 against 0.5) is
// not; a line that ran out of sweeps is not compared; means apart by more
// than 2 (sd₁ + sd₂) are flagged, by less are not.
func TestFlagApart(t *testing.T) {
	disc := func(label string, st infer.Status, p float64) *infer.Result {
		return &infer.Result{Method: "ep", Label: label, Status: st, Variables: infer.NewVariables(infer.Variable{Name: "z", Shape: []int{1}, Discrete: true,
			States: []string{"0", "1"}, Probs: [][]float64{{1 - p, p}}})}
	}
	a, b, c, d := disc("ep", infer.Converged, 0.01), disc("alpha", infer.Converged, 0.99), disc("half", infer.Converged, 0.5), disc("limit", infer.IterationLimit, 0.01)
	FlagApart([]*infer.Result{a, b, c, d}, []string{"m.fg:1:1", "m.fg:2:1", "m.fg:3:1", "m.fg:4:1"})
	if len(a.Warnings) != 0 || len(b.Warnings) != 1 || len(c.Warnings) != 0 || len(d.Warnings) != 0 ||
		b.Warnings[0].String() != "m.fg:2:1: warning: p(z[0] = 0) is 0.01 here and 0.99 under `ep` (they differ by more than 0.5): the two lines found different answers — on a posterior with several modes, different modes; compare with infer exact or infer mcmc" {
		t.Errorf("warnings: %v | %v | %v | %v", a.Warnings, b.Warnings, c.Warnings, d.Warnings)
	}
	cont := func(label string, m float64) *infer.Result {
		return &infer.Result{Method: "ep", Label: label, Status: infer.Converged, Variables: infer.NewVariables(infer.Variable{Name: "x", Mean: []float64{0, m}, Var: []float64{1, 1}})}
	}
	for _, c := range []struct {
		m    float64
		flag bool
	}{{3.9, false}, {4.1, true}} {
		r, o := cont("a", 0), cont("b", c.m)
		FlagApart([]*infer.Result{r, o}, []string{"", ""})
		if got := len(o.Warnings) == 1; got != c.flag || len(r.Warnings) != 0 {
			t.Errorf("means 0 and %g, sds 1: warnings %v %v", c.m, r.Warnings, o.Warnings)
		}
	}
}

// TestGatedLabelSwitching: a two-component mixture with gated means and a
// nearly symmetric prior: ep and alpha(0.5) converge on opposite labellings
// (mu[0] ≈ −2.04 and 2.09) while exact puts every z[i] near 0.5. Each EP
// line carries the gated factor's multimodality warning, naming it; the
// alpha line says it disagrees with the ep line (the earlier approximate
// one) and ep that a label probability differs from exact's by more than
// 0.5.
func TestGatedLabelSwitching(t *testing.T) {
	rs := runSrc(t, `
data y: real[8] = [-2.1, 1.9, -1.8, 2.2, -2.4, 2.0, -1.9, 2.3]
latent mu: real[2] ~ normal([0.5, 0], 100)
latent z: cat(2)[8] ~ categorical([0.5, 0.5])
for i in 0..8 { y[i] ~ normal(mu[z[i]], 1) }
infer ep { tol = 1e-10 }
infer ep as a5 { divergence = alpha(0.5), tol = 1e-10 }
infer exact
`)
	ep, a5 := rs["ep"], rs["a5"]
	if m0, m1 := ep.Variables.At(0).Mean[0], a5.Variables.At(0).Mean[0]; ep.Status != infer.Converged || a5.Status != infer.Converged || !(m0 < -1.5 && m1 > 1.5) {
		t.Fatalf("ep %v mu[0] = %g, a5 %v mu[0] = %g: not the opposite labellings", ep.Status, m0, a5.Status, m1)
	}
	for _, r := range []*infer.Result{ep, a5} {
		if !hasWarning(r, "the gated factor normal(y[0] | z[0]) at test.fg:5:17 is not log-concave") {
			t.Errorf("%s: warnings %v", r.Label, r.Warnings)
		}
	}
	if !hasWarning(a5, "mu[0] is 2.094 ± 0.5004 here and -2.04 ± 0.5029 under `ep` (their ±2 sd intervals do not overlap)") ||
		!hasWarning(ep, "(they differ by more than 0.5)") || hasWarning(rs["exact"], "different answers") {
		t.Errorf("warnings: ep %v, a5 %v, exact %v", ep.Warnings, a5.Warnings, rs["exact"].Warnings)
	}
}
