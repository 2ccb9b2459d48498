package fg_test

import (
	"context"
	"math"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestLearnNetAPI: a model with Beta latents learns its prior's
// pseudo-counts through the Go API (examples/families/learn_pseudocounts.fg):
// the learned values equal the beta-binomial maximiser in the file (1e-6)
// and its expect lines pass.
func TestLearnNetAPI(t *testing.T) {
	m, err := fg.Load("examples/families/learn_pseudocounts.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Get("ep")
	for name, want := range map[string]float64{"a": 1.62435937604, "b": 2.96039003495} {
		got, ok := r.Learned(name)
		if !ok || !(math.Abs(got/want-1) < 1e-6) {
			t.Errorf("%s learned %v (%v), want %.12g", name, got, ok, want)
		}
	}
	if es := res.Expects(); len(es) < m.NumExpects() || fg.Failed(es) { // an expect line without `for` is checked on both lines
		t.Errorf("expectations %+v", es)
	}
}

// TestLearnNetAffineAPI: an instrument's gain and offset, a learned
// coefficient and constant of an affine mean of latents in a typed factor
// graph, through the Go API (examples/families/learn_calibration.fg): both
// learned, the expect lines (which pin them to 1e-6) pass.
func TestLearnNetAffineAPI(t *testing.T) {
	m, err := fg.Load("examples/families/learn_calibration.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Get("ep")
	for name, want := range map[string]float64{"gain": 1.13885710, "offset": -1.22311318} {
		got, ok := r.Learned(name)
		if !ok || !(math.Abs(got/want-1) < 1e-6) {
			t.Errorf("%s learned %v (%v), want %.9g", name, got, ok, want)
		}
	}
	if es := res.Expects(); len(es) < m.NumExpects() || fg.Failed(es) {
		t.Errorf("expectations %+v", es)
	}
}
