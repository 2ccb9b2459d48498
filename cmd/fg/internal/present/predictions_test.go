package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestPredictionFooterEvent: the prediction table's footer names the event
// of the class probabilities by the labels of the likelihood
// (infer.Prediction.Event): p(y = 1) for 0/1 labels, p(y = +1) for spins,
// both when the results hold both.
func TestPredictionFooterEvent(t *testing.T) {
	pred := func(name, event string) infer.Prediction {
		return infer.Prediction{Name: name, Mean: []float64{0}, Var: []float64{1}, Prob: []float64{0.5}, Event: event}
	}
	for _, c := range []struct {
		preds []infer.Prediction
		want  string
	}{
		{[]infer.Prediction{pred("p", "y = 1")}, "  (p(y = 1) where the likelihood defines it,"},
		{[]infer.Prediction{pred("p", "y = +1")}, "  (p(y = +1) where the likelihood defines it,"},
		{[]infer.Prediction{pred("p", "y = 1"), pred("q", "y = +1")}, "  (p(y = +1) or p(y = 1) where"},
	} {
		var b bytes.Buffer
		writePredictions(&b, []*infer.Result{{Label: "ep", Predictions: c.preds}}, TableOptions{})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("footer of %v:\n%s\nwant %q", c.preds, b.String(), c.want)
		}
	}
}
