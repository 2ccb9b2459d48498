package fgtest

import (
	"fmt"
	"strings"
	"testing"

	fg "github.com/fg-infer/fg"
	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/parser"
)

// recorder is a testing.TB that records errors instead of failing.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper()                 {}
func (r *recorder) Error(args ...any)       { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Log(args ...any)         { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Logf(f string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }

func TestCheckExpectsReportsFailures(t *testing.T) {
	pass, _ := parser.ParseExpr("mean(w) > 0")
	fail, _ := parser.ParseExpr("mean(w) > 1")
	res := &fg.Results{
		Model: &compile.Model{Expects: []*compile.ExpectSpec{{Expr: pass}, {Expr: fail}}},
		List: []*infer.Result{{Label: "ep", Status: infer.Converged,
			Variables: []infer.Variable{{Name: "w", Mean: []float64{0.5}, Var: []float64{1}}}}},
	}
	rec := &recorder{TB: t}
	CheckExpects(rec, res)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "FAIL") || !strings.Contains(rec.errors[0], "mean(w) = 0.5") {
		t.Errorf("errors = %q", rec.errors)
	}
	if len(rec.logs) != 1 || !strings.HasPrefix(rec.logs[0], "PASS") {
		t.Errorf("logs = %q", rec.logs)
	}
}

// TestToyModel checks testdata/toy.fg's expects through the real pipeline.
func TestToyModel(t *testing.T) {
	res := TestModel(t, "../testdata/toy.fg")
	if res.Get("mcmc") == nil || res.Get("ep") == nil {
		t.Errorf("results %v", res.Labels())
	}
}
