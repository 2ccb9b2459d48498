package fg_test

import (
	"context"
	"math"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestLearnNetAPI: models with Beta or Gamma latents learn through the Go
// API — a Beta prior's pseudo-counts (examples/families/learn_pseudocounts.fg,
// the beta-binomial maximiser in the file) and an instrument's gain and
// offset, a coefficient and constant of an affine mean of latents
// (examples/families/learn_calibration.fg) — to 1e-6 of the values in the
// files, whose expect lines pass.
func TestLearnNetAPI(t *testing.T) {
	for _, c := range []struct {
		file string
		want map[string]float64
	}{
		{"examples/families/learn_pseudocounts.fg", map[string]float64{"a": 1.62435937604, "b": 2.96039003495}},
		{"examples/families/learn_calibration.fg", map[string]float64{"gain": 1.13885710, "offset": -1.22311318}},
	} {
		m, err := fg.Load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r := res.Get("ep")
		for name, want := range c.want {
			got, ok := r.Learned(name)
			if !ok || !(math.Abs(got/want-1) < 1e-6) {
				t.Errorf("%s: %s learned %v (%v), want %.12g", c.file, name, got, ok, want)
			}
		}
		if es := res.Expects(); len(es) < m.NumExpects() || fg.Failed(es) { // an expect line without `for` is checked on both lines
			t.Errorf("%s: expectations %+v", c.file, es)
		}
	}
}
