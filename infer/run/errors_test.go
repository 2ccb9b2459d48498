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
