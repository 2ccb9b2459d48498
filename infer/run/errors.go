package run

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fg-infer/fg/infer"
)

// goldIndex returns the index of the model's gold-standard result: the first
// successful "exact" result, else the first successful "mcmc" one, else -1.
func goldIndex(rs []*infer.Result) int {
	for _, method := range []infer.Method{infer.MethodExact, infer.MethodMCMC} {
		for i, r := range rs {
			if r != nil && r.Method == string(method) && (r.Status == infer.Done || r.Status == infer.Converged) {
				return i
			}
		}
	}
	return -1
}

// FillErrors sets Errors on every result other than the gold standard:
// mean absolute errors of marginal means, variances and probabilities over
// all elements of the variables both results report, and |Δ log Z|.
func FillErrors(rs []*infer.Result) {
	g := goldIndex(rs)
	if g < 0 {
		return
	}
	ref := rs[g]
	for i, r := range rs {
		if i == g || r == nil || !r.Status.HasNumbers() {
			continue
		}
		r.Errors = compare(r, ref)
	}
}

func compare(r, ref *infer.Result) *infer.Errors {
	e := &infer.Errors{Reference: ref.Label, ReferenceWarnings: len(ref.Warnings)}
	var mean, vr, prob mae
	for i, v := range r.Variables.All() {
		rv, ok := refVar(ref, i, v.Name)
		if !ok {
			continue
		}
		mean.add(v.Mean, rv.Mean)
		vr.add(v.Var, rv.Var)
		for k := range v.Probs {
			if k < len(rv.Probs) {
				prob.add(v.Probs[k], rv.Probs[k])
			}
		}
	}
	e.MeanMAE, e.HasMean = mean.value()
	e.VarMAE, e.HasVar = vr.value()
	e.ProbMAE, e.HasProb = prob.value()
	if r.HasEvidence && ref.HasEvidence {
		e.LogZAbs, e.HasLogZ = math.Abs(r.LogEvidence-ref.LogEvidence), true
	}
	return e
}

// refVar finds variable name of r, which is usually its i-th (results of
// one model list the same latents in the same order).
func refVar(r *infer.Result, i int, name string) (infer.Variable, bool) {
	if i < r.Variables.Len() && r.Variables.Name(i) == name {
		return r.Variables.At(i), true
	}
	return r.Variables.Find(name)
}

// mae accumulates a mean absolute difference over paired finite entries.
type mae struct {
	sum float64
	n   int
}

func (m *mae) add(a, b []float64) {
	if len(a) != len(b) {
		return
	}
	for i := range a {
		d := math.Abs(a[i] - b[i])
		if !math.IsNaN(d) && !math.IsInf(d, 0) {
			m.sum += d
			m.n++
		}
	}
}

func (m *mae) value() (float64, bool) {
	if m.n == 0 {
		return 0, false
	}
	return m.sum / float64(m.n), true
}

// apartProb is the difference of a state's probability above which
// flagApart says two lines disagree (0.01 against 0.99 for a label that
// exact puts at 0.5: two labellings of a symmetric mixture).
const apartProb = 0.5

// apartElement is the element at which two results are furthest apart.
type apartElement struct {
	sep  float64 // |Δ mean| / (2 (sd₁ + sd₂)), or |Δ p| / apartProb; > 1 is apart
	what string  // the element and both values
	why  string  // the test it failed
}

// FlagApart warns when two settled results of a run (converged or done)
// lie apart: an element whose means differ by more than 2 (sd₁ + sd₂) (the
// two ±2 sd intervals do not overlap), or a state whose probabilities differ
// by more than apartProb. Approximations of one posterior differ by less
// (EP's fixed point is typically within a fraction of a posterior sd of the
// exact mean, Laplace's too); two lines that far apart found different
// answers — on a posterior with several modes, different modes (EP on a
// mixture settling in the minor mode, two divergences on opposite
// labellings). The warning names the worst element and goes to the later
// line, or to the approximate one when the later is a gold standard (exact,
// mcmc); pos[i] is the position of result i's infer line. The comparison is
// O(elements) per pair of lines.
func FlagApart(rs []*infer.Result, pos []string) {
	for j, r := range rs {
		if !settled(r) {
			continue
		}
		for i, o := range rs[:j] {
			if !settled(o) {
				continue
			}
			w := apart(r, o)
			if w.sep <= 1 {
				continue
			}
			at, other, k := r, o, j
			if gold(r) && !gold(o) {
				at, other, k, w = o, r, i, apart(o, r)
			}
			hint := ""
			if !gold(r) && !gold(o) {
				hint = "; compare with infer exact or infer mcmc"
			}
			at.Warn(pos[k], "%s under `%s` (%s): the two lines found different answers — on a posterior with several modes, different modes%s", w.what, other.Label, w.why, hint)
		}
	}
}

// gold reports whether r is of a gold-standard method (exact, mcmc).
func gold(r *infer.Result) bool {
	return r.Method == string(infer.MethodExact) || r.Method == string(infer.MethodMCMC)
}

// settled reports whether r is a fixed point or a finished gold standard
// (converged or done): a line that ran out of sweeps is not compared.
func settled(r *infer.Result) bool {
	return r != nil && (r.Status == infer.Converged || r.Status == infer.Done)
}

// apart finds the element at which results r and o are furthest apart.
func apart(r, o *infer.Result) apartElement {
	var worst apartElement
	for i, v := range r.Variables.All() {
		w, ok := refVar(o, i, v.Name)
		if !ok {
			continue
		}
		if len(v.Mean) == len(w.Mean) && len(v.Var) == len(v.Mean) && len(w.Var) == len(w.Mean) {
			for k := range v.Mean {
				sr, so := math.Sqrt(v.Var[k]), math.Sqrt(w.Var[k])
				if sep := math.Abs(v.Mean[k]-w.Mean[k]) / (2 * (sr + so)); sep > worst.sep && !math.IsInf(sep, 0) {
					worst = apartElement{sep, fmt.Sprintf("%s is %s ± %s here and %s ± %s", infer.ElementName(v.Name, v.Shape, k),
						num(v.Mean[k]), num(sr), num(w.Mean[k]), num(so)), "their ±2 sd intervals do not overlap"}
				}
			}
		}
		if len(v.Probs) != len(w.Probs) {
			continue
		}
		for k, p := range v.Probs {
			for s := range min(len(p), len(w.Probs[k]), len(v.States)) {
				if sep := math.Abs(p[s]-w.Probs[k][s]) / apartProb; sep > worst.sep {
					worst = apartElement{sep, fmt.Sprintf("p(%s = %s) is %s here and %s", infer.ElementName(v.Name, v.Shape, k), v.States[s], num(p[s]), num(w.Probs[k][s])), "they differ by more than 0.5"}
				}
			}
		}
	}
	return worst
}

// num formats a number for a warning (4 significant digits).
func num(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
