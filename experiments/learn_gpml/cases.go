package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/run"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

// model is GPML's covSEiso + erf classifier; DIR is the case folder.
const model = `model learn_gpml
param dir = "."
param log_ell = 0
param log_sf = 0
data X = csv(dir + "/train.csv", exclude = ["label"])
data y: spin[len(X)] = csv(dir + "/train.csv", column = "label")
data Xtest = csv(dir + "/test.csv", exclude = ["label"])
latent f: real[len(X)] ~ gp(se(exp(log_ell), exp(2 * log_sf)), X)
for i in 0..len(X) {
  y[i] ~ probit(f[i])
}
predict ptest = predictive(f, Xtest)
infer ep
learn log_ell, log_sf { method = METHOD }
`

// row is one optimiser on one case.
type row struct {
	Case     string
	Method   string // "gpml" for GPML's reference row, "fg@gpml" for fg's EP at GPML's point
	Start    [2]float64
	Hyp      [2]float64
	StartNLZ float64
	NLZ      float64
	Acc      float64
	Evals    int
	Seconds  float64
	Trace    []float64
}

func loadCase(name string) (*gpmlCase, error) {
	dir := datadir.Dir()
	kv, err := readSummary(dir + "/reference/gpml/" + name + "_opt100/summary.tsv")
	if err != nil {
		return nil, err
	}
	start, err := readSummary(dir + "/reference/gpml/" + name + "/summary.tsv")
	if err != nil {
		return nil, err
	}
	c := &gpmlCase{Name: name}
	c.GPMLHyp = pair(kv["hyp.cov"])
	c.Start = pair(start["hyp.cov"])
	c.GPMLNLZ, _ = strconv.ParseFloat(kv["nlZ"], 64)
	c.GPMLAcc, _ = strconv.ParseFloat(kv["test_acc"], 64)
	c.GPMLEvals, _ = strconv.Atoi(kv["opt_evals"])
	for _, f := range strings.Fields(kv["opt_nlZ_trace"]) {
		v, _ := strconv.ParseFloat(f, 64)
		c.GPMLTrace = append(c.GPMLTrace, v)
	}
	c.GPMLStartNLZ, _ = strconv.ParseFloat(start["nlZ"], 64)
	return c, nil
}

func pair(s string) [2]float64 {
	var p [2]float64
	for i, f := range strings.Fields(s) {
		if i < 2 {
			p[i], _ = strconv.ParseFloat(f, 64)
		}
	}
	return p
}

// readSummary reads a GPML summary.tsv (key TAB value lines).
func readSummary(path string) (map[string]string, error) { return refdata.Summary(path) }

// compileCase compiles the model for case c with the optimiser method.
func compileCase(c *gpmlCase, method string, set map[string]string) (*compile.Model, error) {
	dir := datadir.Dir()
	src := strings.Replace(model, "METHOD", method, 1)
	s := map[string]string{"dir": strconv.Quote(dir + "/reference/gpml/" + c.Name)}
	for k, v := range set {
		s[k] = v
	}
	return compile.CompileSource("learn_gpml.fg", []byte(src), compile.Options{Set: s})
}

func fnum(x float64) string { return "(" + strconv.FormatFloat(x, 'g', -1, 64) + ")" }

// runCase learns with every method from the case's start, and evaluates fg's
// EP at GPML's learned point.
func runCase(ctx context.Context, c *gpmlCase, methods []string) ([]row, error) {
	labels, err := testLabels(c)
	if err != nil {
		return nil, err
	}
	start := map[string]string{"log_ell": fnum(c.Start[0]), "log_sf": fnum(c.Start[1])}
	rows := []row{{Case: c.Name, Method: "gpml", Start: c.Start, Hyp: c.GPMLHyp, StartNLZ: c.GPMLStartNLZ,
		NLZ: c.GPMLNLZ, Acc: c.GPMLAcc, Evals: c.GPMLEvals, Trace: c.GPMLTrace}}
	for _, meth := range methods {
		m, err := compileCase(c, meth, start)
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		lm, learned, trace, err := run.Learn(ctx, m, run.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.Name, meth, err)
		}
		sec := time.Since(t0).Seconds()
		r, err := evaluate(ctx, lm, labels)
		if err != nil {
			return nil, err
		}
		r.Case, r.Method, r.Start, r.Evals, r.Seconds, r.Trace = c.Name, meth, c.Start, len(trace), sec, trace
		r.StartNLZ = trace[0]
		for i, l := range learned {
			r.Hyp[i] = l.Value
		}
		rows = append(rows, r)
	}
	at := map[string]string{"log_ell": fnum(c.GPMLHyp[0]), "log_sf": fnum(c.GPMLHyp[1])}
	m, err := compileCase(c, "lbfgs", at)
	if err != nil {
		return nil, err
	}
	r, err := evaluate(ctx, m, labels)
	if err != nil {
		return nil, err
	}
	r.Case, r.Method, r.Start, r.Hyp = c.Name, "fg_ep@gpml", c.GPMLHyp, c.GPMLHyp
	return append(rows, r), nil
}

// evaluate runs the model's ep line and returns nlZ and the test accuracy
// of p(y* = +1) > ½.
func evaluate(ctx context.Context, m *compile.Model, labels []float64) (row, error) {
	res, err := run.Run(ctx, m, run.Options{})
	if err != nil {
		return row{}, err
	}
	r := res[0]
	if r.Status != infer.Converged || !r.HasEvidence || len(r.Predictions) == 0 {
		return row{}, fmt.Errorf("ep on the learned model: %v %s", r.Status, r.Message)
	}
	p := r.Predictions[0].Prob
	correct := 0
	for i, y := range labels {
		if (p[i] > 0.5) == (y > 0) {
			correct++
		}
	}
	return row{NLZ: -r.LogEvidence, Acc: float64(correct) / float64(len(labels))}, nil
}

func testLabels(c *gpmlCase) ([]float64, error) {
	f, err := os.Open(datadir.Path("reference", "gpml", c.Name, "test.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	col := -1
	for j, h := range recs[0] {
		if h == "label" {
			col = j
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("%s: test.csv has no label column", c.Name)
	}
	var out []float64
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
