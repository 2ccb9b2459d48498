package run

import (
	"math"

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
