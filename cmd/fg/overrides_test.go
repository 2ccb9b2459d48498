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

// TestOnlyCompilesTheLinesThatRun: a model whose mcmc line is refused does
// not compile as a whole, but runs with --only on its other line; an expect
// on the skipped line is SKIP, and labels keep their file order.
func TestOnlyCompilesTheLinesThatRun(t *testing.T) {
	const model = "testdata/only_refused.fg"
	_, stderr, code := runFG("run", model)
	if code != exitError || !strings.Contains(stderr, "only_refused.fg:11:1: error: no rule for tp in mcmc") ||
		strings.Count(stderr, "error:") != 1 {
		t.Errorf("without --only: exit %d, want one error at the mcmc line:\n%s", code, stderr)
	}
	out, stderr, code := runFG("run", model, "--only", "ep_t", "--check")
	if code != exitOK {
		t.Fatalf("--only ep_t: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ep_t", "status        converged", "PASS " + model + ":12:1: expect converged [ep_t]",
		"SKIP " + model + ":13:1: expect converged [mcmc]: result mcmc was not run"} {
		if !strings.Contains(out, want) {
			t.Errorf("--only ep_t: output lacks %q:\n%s", want, out)
		}
	}
	_, stderr, code = runFG("run", model, "--only", "nosuch")
	if code != exitError || !strings.Contains(stderr, `no infer line labelled "nosuch"; labels are ep_t, mcmc`) {
		t.Errorf("unknown --only: exit %d, %q", code, stderr)
	}
}

// TestCheckTakesOverrides: fg check compiles with --set and --data as fg
// run does: a size param set on the command line changes the counts, and
// the override errors are run's.
func TestCheckTakesOverrides(t *testing.T) {
	stdout, stderr, code := runFG("check", "--set", "T=40", "testdata/budget_chain.fg")
	if code != exitOK || !strings.Contains(stdout, "40 variable(s), 50 factor(s)") {
		t.Errorf("--set T=40: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	overrideErrors(t, "check")
}

// overrideErrors checks that command reports bad --set and --data on
// testdata/toy.fg as fg run does.
func overrideErrors(t *testing.T, command string) {
	t.Helper()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "nosuch=1"}, "testdata/toy.fg: error: --set nosuch: the model has no param `nosuch` (params: `eps`)"},
		{[]string{"--data", "X=x.csv"}, "testdata/toy.fg: error: --data X: the model has no csv data item `X` (it has none)"},
		{[]string{"--set", "eps"}, "--set"},
	} {
		_, stderr, code := runFG(append([]string{command, "testdata/toy.fg"}, c.args...)...)
		if code == exitOK || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %v: exit %d, stderr %q, want %q", command, c.args, code, stderr, c.want)
		}
	}
}

// TestGraphTakesOverrides: fg graph compiles with --set and --data as fg
// run and fg check do (a size param set on the command line is drawn at
// that size), with the same errors.
func TestGraphTakesOverrides(t *testing.T) {
	stdout, stderr, code := runFG("graph", "--set", "T=45", "testdata/budget_chain.fg")
	if code != exitOK || !strings.Contains(stdout, `label="x[44]"`) || strings.Contains(stdout, `label="x[45]"`) {
		t.Errorf("--set T=45: exit %d, stderr %q, x[44] drawn %v", code, stderr, strings.Contains(stdout, `label="x[44]"`))
	}
	overrideErrors(t, "graph")
}
