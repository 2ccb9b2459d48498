// Package fgtest checks fg models from Go tests: it runs a model's infer
// lines and fails the test for every violated expect statement, reporting
// the position, the condition and the observed values.
//
//	func TestToy(t *testing.T) { fgtest.TestModel(t, "testdata/toy.fg") }
package fgtest

import (
	"context"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestModel loads the model at path, runs it and checks its expects.
func TestModel(t testing.TB, path string) *fg.Results {
	t.Helper()
	m, err := fg.Load(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return RunAndCheck(t, m)
}

// RunAndCheck runs m (canceled when the test's context ends) and checks
// its expects.
func RunAndCheck(t testing.TB, m *fg.Model) *fg.Results {
	t.Helper()
	ctx := context.Background()
	if c, ok := t.(interface{ Context() context.Context }); ok {
		ctx = c.Context()
	}
	res, err := m.Run(ctx)
	if err != nil {
		t.Fatalf("%s: run: %v", m.Filename(), err)
	}
	CheckExpects(t, res)
	return res
}

// CheckExpects reports every failed expect of res as a test error (and
// every passing one in verbose mode).
func CheckExpects(t testing.TB, res *fg.Results) {
	t.Helper()
	es := res.Expects()
	if len(es) == 0 {
		t.Logf("no expect statements")
	}
	for _, e := range es {
		if e.Pass || e.Skipped {
			t.Log(e)
		} else {
			t.Error(e)
		}
	}
}
