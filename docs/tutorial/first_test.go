package tutorial_test

import (
	"testing"

	"github.com/fg-infer/fg/fgtest"
	"github.com/fg-infer/fg/infer"
)

// TestFirst runs docs/tutorial/first.fg and checks its expect statements.
func TestFirst(t *testing.T) {
	res := fgtest.TestModel(t, "first.fg")
	if ep := res.Get("ep"); ep == nil || ep.Status != infer.Converged {
		t.Errorf("EP did not converge: %+v", ep)
	}
}
