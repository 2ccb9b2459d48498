package main

import (
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
