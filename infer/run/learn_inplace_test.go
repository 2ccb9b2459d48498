package run

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/compile"
)

// TestLearnCompilesOnce: learning on a factor graph or a typed factor
// graph (Net) compiles the model once, for the learned model it returns;
// every evaluation of the evidence — and the re-evaluations at x ± h that
// differentiate the factors' numbers — sets the learned values in place in
// one copy of the compiled graph (compile.LearnFunc), so the compilations
// do not grow with the evaluations. (Not parallel: the counter is the
// process's.)
func TestLearnCompilesOnce(t *testing.T) {
	var cases []struct {
		name string
		m    func(t *testing.T) *compile.Model
	}
	add := func(name string, m func(t *testing.T) *compile.Model) {
		cases = append(cases, struct {
			name string
			m    func(t *testing.T) *compile.Model
		}{name, m})
	}
	for _, c := range learnFGCases {
		if c.name != "walk_long" || !testing.Short() {
			add(c.name, func(t *testing.T) *compile.Model { return compileFGCase(t, c.file, c.src, c.replace) })
		}
	}
	for _, c := range learnNetCases {
		if !c.long || !testing.Short() {
			add("net_"+c.name, func(t *testing.T) *compile.Model { return compileNetCase(t, c.src) })
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			before := compile.Compiles()
			_, _, trace, err := Learn(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := compile.Compiles() - before
			if len(trace) < 3 || n != 1 {
				t.Errorf("%d evaluations compiled the model %d times; want 1 (the learned model)", len(trace), n)
			}
		})
	}
}
