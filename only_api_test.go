package fg_test

import (
	"context"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestOverridesOnly: Overrides.Only compiles the listed infer lines alone,
// so a line the model refuses does not stop the others; Run runs them.
func TestOverridesOnly(t *testing.T) {
	const path = "cmd/fg/testdata/only_refused.fg"
	if _, err := fg.Load(path); err == nil {
		t.Fatal("the refused mcmc line compiled")
	}
	m, err := fg.LoadWith(path, fg.Overrides{Only: []string{"ep_t"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Labels(); len(got) != 1 || got[0] != "ep_t" {
		t.Errorf("labels %v, want [ep_t]", got)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Labels(); len(got) != 1 || got[0] != "ep_t" || !res.Succeeded() {
		t.Errorf("ran %v (succeeded %v), want ep_t", got, res.Succeeded())
	}
	if err := m.Set("nope", "1"); err == nil {
		t.Error("Set of an unknown param succeeded")
	}
	if _, err := m.Run(context.Background()); err != nil {
		t.Errorf("after a failed Set (model unchanged): %v", err)
	}
}
