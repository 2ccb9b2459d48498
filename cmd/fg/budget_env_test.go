package main

import (
	"fmt"
	"os"
	"path/filepath"
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
// 2·10⁵ steps: 4·10⁵ factors and variables at 256 bytes), the branches
// of gated likelihoods (64 × 2000 at 768 bytes) and a libDAI graph (10⁵
// factors and variables at 640 bytes) are charged against the
// memory budget before they are built: under FG_MEMORY_BUDGET=64M all are
// refused with the budget named, at a position; under 512M all compile.
// (The budget is read once per process, so fg runs as a subprocess.)
func TestModelsChargedToBudget(t *testing.T) {
	// A libDAI chain of 10⁵ binary factors over 10⁵ variables (640 bytes each).
	var b strings.Builder
	const n = 100000
	fmt.Fprintf(&b, "%d\n", n)
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "\n2\n%d %d\n2 2\n4\n0 1\n1 2\n2 2\n3 1\n", i, i+1)
	}
	fmt.Fprintf(&b, "\n1\n%d\n2\n2\n0 1\n1 2\n", n-1)
	chain := filepath.Join(t.TempDir(), "chain.fg")
	if err := os.WriteFile(chain, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "testdata/budget_chain.fg", "--set", "T=200000", "--only", "ep"}, `budget_chain.fg:\d+:1: error: the model is a factor graph of 200010 factors over 200000 variables .* about 97\.7 MiB through inference at 256 bytes each, more than the memory budget of 64 MiB`},
		{[]string{"check", "testdata/budget_mixture.fg"}, `budget_mixture.fg:\d+:3: error: the gated likelihoods reach \d+ branches .* more than the memory budget of 64 MiB`},
		{[]string{"check", chain}, `chain.fg:1:1: error: the libDAI graph has 100000 factors over 100000 variables: about 122\.1 MiB through bp and exact at 640 bytes each, more than the memory budget of 64 MiB`},
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
