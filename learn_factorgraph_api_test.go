package fg_test

import (
	"context"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestLearnFactorGraphExamplesAPI: the learn-on-a-factor-graph examples
// through the Go API learn their params (the learned values differ from
// the starts) and pass their expect lines, which pin the learned values to
// 1e-4 relative (learn_ar.fg's to 5e-7 absolute) and log Z to 1e-6.
func TestLearnFactorGraphExamplesAPI(t *testing.T) {
	for _, c := range []struct {
		file   string
		params []string
	}{
		{"examples/learn_gp_bias.fg", []string{"ell", "sf2"}},
		{"examples/learn_random_walk.fg", []string{"q"}},
		{"examples/learn_gp_hierarchy.fg", []string{"ell", "tau2"}},
		{"examples/learn_ar.fg", []string{"a", "d"}},
	} {
		m, err := fg.Load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		r := res.Get("ep")
		for _, p := range c.params {
			if _, ok := r.Learned(p); !ok {
				t.Errorf("%s: %s not learned", c.file, p)
			}
		}
		es := res.Expects()
		if len(es) != m.NumExpects() || fg.Failed(es) {
			t.Errorf("%s: expectations %+v", c.file, es)
		}
	}
}
