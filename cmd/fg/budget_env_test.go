package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestBadMemoryBudgetEnv: an FG_MEMORY_BUDGET that is not a positive size
// is a usage error naming the variable, not a silent fall back to the
// computed budget.
func TestBadMemoryBudgetEnv(t *testing.T) {
	for _, v := range []string{"lots", "-5", "0", "12X", ""} {
		t.Setenv("FG_MEMORY_BUDGET", v)
		_, errs, code := runFG("check", "testdata/toy.fg")
		if code != exitUsage || !strings.Contains(errs, "FG_MEMORY_BUDGET") {
			t.Errorf("FG_MEMORY_BUDGET=%q: exit %d, stderr %q; want exit %d naming the variable", v, code, errs, exitUsage)
		}
	}
	t.Setenv("FG_MEMORY_BUDGET", "2G")
	if _, errs, code := runFG("check", "testdata/toy.fg"); code != exitOK {
		t.Errorf("FG_MEMORY_BUDGET=2G: exit %d, stderr %q", code, errs)
	}
}

// TestModelsChargedToBudget: a factor-graph model (a Gaussian chain of
// 2·10⁵ steps: 4·10⁵ factors and variables at 256 bytes) and the branches
// of gated likelihoods (64 × 2000 at 768 bytes) are charged against the
// memory budget before they are built: under FG_MEMORY_BUDGET=64M both are
// refused with the budget named, at a position; under 512M both compile.
// (The budget is read once per process, so fg runs as a subprocess.)
func TestModelsChargedToBudget(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "testdata/budget_chain.fg", "--set", "T=200000", "--only", "ep"}, `budget_chain.fg:\d+:1: error: the model is a factor graph of 200010 factors over 200000 variables .* about 97\.7 MiB through inference at 256 bytes each, more than the memory budget of 64 MiB`},
		{[]string{"check", "testdata/budget_mixture.fg"}, `budget_mixture.fg:\d+:3: error: the gated likelihoods reach \d+ branches .* more than the memory budget of 64 MiB`},
	} {
		for _, budget := range []string{"64M", "512M"} {
			cmd := fgCommand(t, tc.args...)
			cmd.Env = append(cmd.Env, "FG_MEMORY_BUDGET="+budget)
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			refused := regexp.MustCompile(tc.want).Match(out)
			if budget == "64M" && (code != exitError || !refused) {
				t.Errorf("fg %s under %s: exit %d, want 1 and /%s/:\n%s", strings.Join(tc.args, " "), budget, code, tc.want, out)
			}
			if budget == "512M" && (code != exitOK || refused) {
				t.Errorf("fg %s under %s: exit %d:\n%.2000s", strings.Join(tc.args, " "), budget, code, out)
			}
		}
	}
}
