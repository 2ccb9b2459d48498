package tutorial_test

import (
	"math"
	"testing"

	fg "github.com/fg-infer/fg"
	"github.com/fg-infer/fg/fgtest"
)

// TestFirst runs docs/tutorial/first.fg, checks its expect statements and
// then compares EP's posterior mean of w[1] with exact's.
func TestFirst(t *testing.T) {
	res := fgtest.TestModel(t, "first.fg")
	ep, exact := res.Get("ep"), res.Get("exact")
	if ep == nil || exact == nil || ep.Status() != fg.StatusConverged {
		t.Fatalf("want converged ep and exact results, labels %v", res.Labels())
	}
	m, err := ep.Mean("w", 1)
	if err != nil {
		t.Fatal(err)
	}
	if m0, _ := exact.Mean("w", 1); !(math.Abs(m-m0) <= 0.01) {
		t.Errorf("EP's mean of w[1] is %.4f, exact's %.4f", m, m0)
	}
}
