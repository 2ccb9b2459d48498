package present

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// warned returns a gold standard with two warnings and a result compared
// against it whose Student-t marginal has an infinite variance.
func warned() []*infer.Result {
	ref := &infer.Result{Method: "mcmc", Label: "mcmc", Status: infer.Done,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{1}, Mean: []float64{0.1}, Var: []float64{1}}}...)}
	ref.Warn("m.fg:7:1", "split R-hat 1.155 > 1.01 at w[0]: the chains disagree; run more samples (or burnin)")
	ref.Warn("m.fg:7:1", "effective sample size 11 < 400 at w[0]: Monte Carlo error is large; run more samples")
	r := &infer.Result{Method: "ep", Label: "ep_t", Status: infer.Converged,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{1}, Mean: []float64{0.2}, Var: []float64{math.Inf(1)}}}...),
		Errors:    &infer.Errors{Reference: "mcmc", ReferenceWarnings: 2, MeanMAE: 0.1, HasMean: true}}
	return []*infer.Result{r, ref}
}

// TestTableWarnings: a warnings row with the counts, every warning below
// the results with the infer line's position, the reference's warnings
// named in the error rows, and — (not ± +Inf) where JSON has null.
func TestTableWarnings(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, "m", warned(), TableOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"warnings ",
		"mean MAE vs mcmc (mcmc has 2 warnings)",
		"mcmc: m.fg:7:1: warning: split R-hat 1.155 > 1.01 at w[0]",
		"mcmc: m.fg:7:1: warning: effective sample size 11 < 400",
		"0.2 ± —",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Inf") {
		t.Errorf("table prints Inf:\n%s", out)
	}
}

// TestJSONWarnings: warnings as {pos, message}, [] when there are none,
// and reference_warnings in the errors object.
func TestJSONWarnings(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, "m", warned()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			Label    string `json:"label"`
			Warnings []struct {
				Pos, Message string
			} `json:"warnings"`
			Errors *struct {
				ReferenceWarnings int `json:"reference_warnings"`
			} `json:"errors"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	ep, mc := doc.Results[0], doc.Results[1]
	if ep.Warnings == nil || len(ep.Warnings) != 0 || ep.Errors == nil || ep.Errors.ReferenceWarnings != 2 {
		t.Errorf("ep: %+v", ep)
	}
	if len(mc.Warnings) != 2 || mc.Warnings[0].Pos != "m.fg:7:1" || !strings.HasPrefix(mc.Warnings[0].Message, "split R-hat") {
		t.Errorf("mcmc: %+v", mc)
	}
}

// TestFailedCarriesNoNumbers: a failed result's numbers are cleared
// (infer.Result.ClearNumbers): the table prints — for its evidence and
// marginals, JSON null and no variables.
func TestFailedCarriesNoNumbers(t *testing.T) {
	r := &infer.Result{Method: "bp", Label: "bp", Status: infer.Diverged, HasEvidence: true,
		Variables: infer.NewVariables([]infer.Variable{{Name: "x", Shape: []int{1}, Discrete: true, States: []string{"-1", "+1"}, Probs: [][]float64{{0, 0}}}}...)}
	r.ClearNumbers()
	var b bytes.Buffer
	if err := WriteJSON(&b, "m", []*infer.Result{r}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, `"log_evidence": null`) || !strings.Contains(s, `"variables": {}`) {
		t.Errorf("JSON of a diverged result:\n%s", s)
	}
	b.Reset()
	WriteTable(&b, "m", []*infer.Result{r}, TableOptions{})
	if s := b.String(); !strings.Contains(s, "log evidence  —") || strings.Contains(s, "x[0]") {
		t.Errorf("table of a diverged result:\n%s", s)
	}
}
