package run

import (
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestSamplingWarningsNameElementsAsTheTable: an element of a matrix
// latent is named with its row and column (perf[3, 0]), as the table
// names it, not by its flat index (perf[6]).
func TestSamplingWarningsNameElementsAsTheTable(t *testing.T) {
	rhat, ess := make([]float64, 16), make([]float64, 16)
	for i := range rhat {
		rhat[i], ess[i] = 1, 1000
	}
	rhat[6], ess[13] = 1.5, 20
	r := &infer.Result{Status: infer.Done, Variables: infer.NewVariables([]infer.Variable{{Name: "perf", Shape: []int{8, 2}, RHat: rhat, ESS: ess}}...)}
	samplingWarnings(r, "m.fg:1:1")
	var msgs []string
	for _, w := range r.Warnings {
		msgs = append(msgs, w.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "split R-hat 1.5 > 1.01 at perf[3, 0]") || !strings.Contains(all, "effective sample size 20 < 400 at perf[6, 1]") {
		t.Errorf("warnings:\n%s", all)
	}
}
