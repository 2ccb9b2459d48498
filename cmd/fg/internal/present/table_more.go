package present

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fg-infer/fg/infer"
)

// predNames lists prediction names in order of first appearance.
func predNames(rs []*infer.Result) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, p := range r.Predictions {
			// A prediction on streamed libsvm data carries only its test
			// scores (the test rows of the summary), no per-point values.
			if !seen[p.Name] && len(p.Mean) > 0 {
				seen[p.Name] = true
				names = append(names, p.Name)
			}
		}
	}
	return names
}

func findPred(r *infer.Result, name string) *infer.Prediction {
	for i := range r.Predictions {
		if r.Predictions[i].Name == name {
			return &r.Predictions[i]
		}
	}
	return nil
}

// writePredictions prints the first elements of every prediction: p(y = +1)
// or p(y = 1) (probText) where the likelihood defines it, otherwise the
// predictive latent mean ± sd.
func writePredictions(w io.Writer, rs []*infer.Result, opt TableOptions) {
	names := predNames(rs)
	if len(names) == 0 {
		return
	}
	fmt.Fprintln(w)
	g := &grid{}
	g.add(row("prediction", rs, func(r *infer.Result) string { return r.Label })...)
	var notes []string
	for _, name := range names {
		var shape []int
		n := 0
		for _, r := range rs {
			if p := findPred(r, name); p != nil {
				shape, n = p.Shape, len(p.Mean)
				break
			}
		}
		k := opt.limit(n)
		for i := 0; i < k; i++ {
			g.add(row(infer.ElementName(name, shape, i), rs, func(r *infer.Result) string {
				return predCell(findPred(r, name), i)
			})...)
		}
		if k < n {
			notes = append(notes, fmt.Sprintf("%s: %d of %d points shown (--all, --json or --csv for all)", name, k, n))
		}
	}
	g.write(w, "")
	p := probText(rs)
	if anyResult(rs, func(r *infer.Result) bool { return len(r.Predictions) > 0 && r.Predictions[0].MeanY != nil }) {
		fmt.Fprintf(w, "  (expected count E[y] for count likelihoods (poisson_log, poisson, binomial), %s for classifiers, else the predictive mean ± sd: of the latent, or of a new observation y* for predictive(DIST(...)))\n", p)
	} else {
		fmt.Fprintf(w, "  (%s where the likelihood defines it, else the predictive mean ± sd: of the latent, or of a new observation y* for predictive(DIST(...)))\n", p)
	}
	for _, n := range notes {
		fmt.Fprintf(w, "  (%s)\n", n)
	}
}

// probText names the class probabilities the predictions report, by the
// events of their likelihoods' labels (infer.Prediction.Event): p(y = +1)
// on spin labels, p(y = 1) on 0/1 labels, both when the results hold both.
func probText(rs []*infer.Result) string {
	var events []string
	for _, r := range rs {
		for _, p := range r.Predictions {
			if p.Event != "" && !slices.Contains(events, p.Event) {
				events = append(events, p.Event)
			}
		}
	}
	if len(events) == 0 {
		events = []string{"y = +1"}
	}
	slices.Sort(events)
	for i, e := range events {
		events[i] = "p(" + e + ")"
	}
	return strings.Join(events, " or ")
}

func predCell(p *infer.Prediction, i int) string {
	if p == nil || i >= len(p.Mean) {
		return Dash
	}
	if i < len(p.Prob) {
		return num(p.Prob[i])
	}
	if i < len(p.MeanY) {
		return num(p.MeanY[i])
	}
	v := 0.0
	if i < len(p.Var) {
		v = p.Var[i]
	}
	return meanSD(p.Mean[i], v)
}

func writeLearned(w io.Writer, rs []*infer.Result) {
	if !anyResult(rs, func(r *infer.Result) bool { return len(r.Learned) > 0 }) {
		return
	}
	fmt.Fprintf(w, "\nlearned hyperparameters (evidence maximisation)\n")
	for _, r := range rs {
		if len(r.Learned) == 0 {
			continue
		}
		g := &grid{}
		for _, l := range r.Learned {
			g.add(r.Label, l.Name, num(l.Initial)+" → "+num(l.Value))
		}
		g.write(w, "  ")
	}
}

// writeMessages prints why a result did not converge.
func writeMessages(w io.Writer, rs []*infer.Result) {
	first := true
	for _, r := range rs {
		if r.Message == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "%s: %s: %s\n", r.Label, r.Status, r.Message)
	}
}
