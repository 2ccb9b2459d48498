package main

import (
	"encoding/csv"
	"strings"
	"testing"
)

// TestOnlySeesMethodLabels: --only selects among the file's infer lines and
// the --method ones alike; --method labels follow the file's.
func TestOnlySeesMethodLabels(t *testing.T) {
	out, stderr, code := runFG("run", "testdata/toy.fg", "--csv", "--method", "ep { divergence = alpha(0.5) }",
		"--method", "ep", "--only", "ep_alpha", "--only", "ep_2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		seen[r[0]] = true
	}
	if len(seen) != 2 || !seen["ep_alpha"] || !seen["ep_2"] {
		t.Errorf("results %v, want ep_alpha and ep_2", seen)
	}
	_, stderr, code = runFG("run", "testdata/toy.fg", "--only", "nosuch", "--method", "ep as mine")
	if code != exitError || !strings.Contains(stderr, `no infer line labelled "nosuch"; labels are ep, ep_relaxed_kl, mcmc, mine`) {
		t.Errorf("unknown --only: exit %d, %q", code, stderr)
	}
}

// TestOverrideErrors: a --method label that exists is an error (not a
// rename), and --set errors point at the declaration they override or, for
// an unknown name, list the params.
func TestOverrideErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "ep as ep"}, "--method:1:7: error: label `ep` is already the label of the infer line at testdata/toy.fg:13:1"},
		{[]string{"--set", "nosuch=1"}, "testdata/toy.fg: error: --set nosuch: the model has no param `nosuch` (params: `eps`)"},
		{[]string{"--set", "eps=2+"}, "testdata/toy.fg:6:7: error: --set eps=2+"},
		{[]string{"--data", "X=x.csv"}, "testdata/toy.fg: error: --data X: the model has no csv data item `X` (it has none)"},
	} {
		_, stderr, code := runFG(append([]string{"run", "testdata/toy.fg"}, c.args...)...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
