package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer/run"
	"github.com/fg-infer/fg/internal/datadir"
)

// stepModel is the labeling-noise step classifier (qi-guo eq. 8) with
// covSEiso; log_sf is not learned because the step likelihood makes the
// evidence invariant to the scale of f.
const stepModel = `model learn_gpml_step
param dir = "."
param log_ell = 0
param log_sf = 0
param eps = 0.1
data X = csv(dir + "/train.csv", exclude = ["label"])
data y: spin[len(X)] = csv(dir + "/train.csv", column = "label")
data Xtest = csv(dir + "/test.csv", exclude = ["label"])
latent f: real[len(X)] ~ gp(se(exp(log_ell), exp(2 * log_sf)), X)
for i in 0..len(X) {
  y[i] ~ step(f[i], eps)
}
predict ptest = predictive(f, Xtest)
infer ep
learn log_ell, eps
`

// stepRow is (log ℓ, ε) learned on one step-likelihood case.
type stepRow struct {
	Case               string
	StartEll, StartEps float64
	NLZ0, Acc0         float64
	Ell, Eps           float64
	NLZ, Acc           float64
	Evals              int
	Seconds            float64
}

// runStep learns (log ℓ, ε) on a GPML step case from its reference
// hyperparameters and noise level (summary.tsv: hyp.cov, lik stepnoise:EPS).
func runStep(ctx context.Context, name string) (stepRow, error) {
	dir := datadir.Dir()
	kv, err := readSummary(dir + "/reference/gpml/" + name + "/summary.tsv")
	if err != nil {
		return stepRow{}, err
	}
	hyp := pair(kv["hyp.cov"])
	eps, err := strconv.ParseFloat(strings.TrimPrefix(kv["lik"], "stepnoise:"), 64)
	if err != nil {
		return stepRow{}, fmt.Errorf("%s: lik %q is not stepnoise:EPS", name, kv["lik"])
	}
	set := map[string]string{"dir": strconv.Quote(dir + "/reference/gpml/" + name),
		"log_ell": fnum(hyp[0]), "log_sf": fnum(hyp[1]), "eps": fnum(eps)}
	m, err := compile.CompileSource("learn_gpml_step.fg", []byte(stepModel), compile.Options{Set: set})
	if err != nil {
		return stepRow{}, err
	}
	labels, err := testLabels(&gpmlCase{Name: name})
	if err != nil {
		return stepRow{}, err
	}
	r := stepRow{Case: name, StartEll: hyp[0], StartEps: eps}
	before, err := evaluate(ctx, m, labels)
	if err != nil {
		return r, err
	}
	r.NLZ0, r.Acc0 = before.NLZ, before.Acc
	t0 := time.Now()
	lm, learned, trace, err := run.Learn(ctx, m, run.Options{})
	if err != nil {
		return r, err
	}
	r.Seconds, r.Evals = time.Since(t0).Seconds(), len(trace)
	r.Ell, r.Eps = learned[0].Value, learned[1].Value
	after, err := evaluate(ctx, lm, labels)
	if err != nil {
		return r, err
	}
	r.NLZ, r.Acc = after.NLZ, after.Acc
	return r, nil
}

func printStepTable(w io.Writer, rows []stepRow) {
	fmt.Fprintln(w, "\nstep likelihood: learning (log ℓ, ε) from the reference case's values (plain EP, no GPML reference)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tstart log ℓ\tstart ε\tnlZ start\tacc start\tlearned log ℓ\tlearned ε\tnlZ\ttest acc\tevals\tseconds\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%g\t%g\t%.6f\t%.3f\t%.5f\t%.3g\t%.6f\t%.3f\t%d\t%.2f\t\n",
			r.Case, r.StartEll, r.StartEps, r.NLZ0, r.Acc0, r.Ell, r.Eps, r.NLZ, r.Acc, r.Evals, r.Seconds)
	}
	tw.Flush()
}

func stepCSV(rows []stepRow) [][]string {
	recs := [][]string{{"case", "start_log_ell", "start_eps", "nlz_start", "acc_start", "log_ell", "eps", "nlz", "test_acc", "evals", "seconds"}}
	for _, r := range rows {
		recs = append(recs, []string{r.Case, g(r.StartEll), g(r.StartEps), g(r.NLZ0), g(r.Acc0), g(r.Ell), g(r.Eps),
			g(r.NLZ), g(r.Acc), strconv.Itoa(r.Evals), g(r.Seconds)})
	}
	return recs
}
