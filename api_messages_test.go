package fg_test

import (
	"math"
	"strings"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestAPIErrorsNameGoCalls: errors of the Go API's overrides name the
// calls (Set, SetData, AddMethod), not fg run's flags.
func TestAPIErrorsNameGoCalls(t *testing.T) {
	m, err := fg.Load("examples/toy5.fg")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{m.Set("nope", "1"), `Set("nope", …): the model has no param ` + "`nope`"},
		{m.Set("eps", "1 +"), `Set("eps", "1 +"): `},
		{m.SetData("X", "x.csv"), `SetData("X", …): the model has no csv data item`},
		{m.AddMethod("ep {"), "AddMethod:1:5: expected `}`"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || strings.Contains(c.err.Error(), "--") {
			t.Errorf("error %v, want one containing %q and no flag", c.err, c.want)
		}
	}
	_, err = fg.LoadWith("examples/toy5.fg", fg.Overrides{Set: map[string]string{"nope": "1"}})
	if err == nil || !strings.Contains(err.Error(), `Set("nope", …)`) {
		t.Errorf("LoadWith: %v", err)
	}
}

// TestAPISummedStates: the Go API says when log Z sums over the states of
// discrete latents without a categorical prior (examples/ising_dome.fg:
// 60 spins, Σ log K = 60 log 2) and when it does not (examples/toy5.fg).
func TestAPISummedStates(t *testing.T) {
	m, err := fg.Load("examples/ising_dome.fg")
	if err != nil {
		t.Fatal(err)
	}
	if l, s := m.SummedStates(); len(l) != 1 || l[0] != "x" || !(math.Abs(s-60*math.Log(2)) <= 1e-12) {
		t.Errorf("ising_dome: %v %g", l, s)
	}
	m, err = fg.Load("examples/toy5.fg")
	if err != nil {
		t.Fatal(err)
	}
	if l, s := m.SummedStates(); len(l) != 0 || s != 0 {
		t.Errorf("toy5: %v %g", l, s)
	}
	// A hidden Markov model's states have a prior (z[0]) or a transition
	// (z[t] given z[t-1]): nothing is summed.
	m, err = fg.Load("examples/families/hmm.fg")
	if err != nil {
		t.Fatal(err)
	}
	if l, s := m.SummedStates(); len(l) != 0 || s != 0 {
		t.Errorf("hmm: %v %g", l, s)
	}
}
