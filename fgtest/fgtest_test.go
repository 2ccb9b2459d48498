package fgtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	fg "github.com/fg-infer/fg"
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
	src := "latent w: real[1] ~ normal(0, 1)\ndata y: real[1] = [1]\ny[0] ~ normal(w[0], 1)\ninfer ep\n" +
		"expect mean(w[0]) > 0\nexpect mean(w[0]) > 1\n"
	m, err := fg.LoadBytes("check.fg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	CheckExpects(rec, res)
	// Posterior mean of w: y/2 = 0.5 (prior and likelihood of variance 1).
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "FAIL") || !strings.Contains(rec.errors[0], "mean(w[0]) = 0.5") {
		t.Errorf("errors = %q", rec.errors)
	}
	if len(rec.logs) != 1 || !strings.HasPrefix(rec.logs[0], "PASS") {
		t.Errorf("logs = %q", rec.logs)
	}
}

// TestToyModel checks testdata/toy.fg's expects through the real pipeline.
func TestToyModel(t *testing.T) {
	res := TestModel(t, "../testdata/toy.fg")
	if _, ok := res.Lookup("mcmc"); !ok {
		t.Errorf("results %v", res.Labels())
	}
	if _, ok := res.Lookup("ep"); !ok {
		t.Errorf("results %v", res.Labels())
	}
}
