package main

import (
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
)

// TestRulesCommand: fg rules prints the derived table; --markdown the one
// embedded in docs/language.md.
func TestRulesCommand(t *testing.T) {
	out, _, code := runFG("rules")
	if code != exitOK || out != factor.Text() || !strings.Contains(out, "poisson_log    likelihood  stable") {
		t.Errorf("fg rules: exit %d\n%s", code, out)
	}
	out, _, code = runFG("rules", "--markdown")
	if code != exitOK || out != factor.Markdown() {
		t.Errorf("fg rules --markdown: exit %d\n%s", code, out)
	}
	if _, _, code := runFG("rules", "x"); code != exitUsage {
		t.Errorf("fg rules x: exit %d, want usage error", code)
	}
}

// TestExperimentalWarning: fg check and fg run print an experimental
// rule's warning on stderr with its position and source line.
func TestExperimentalWarning(t *testing.T) {
	const path = "testdata/experimental.fg"
	want := []string{path + ":5:1: warning: ep alpha uses an experimental rule for probit (likelihood)",
		"5 | infer ep { divergence = alpha(0.5) }"}
	for _, args := range [][]string{{"check", path}, {"run", path}} {
		_, errOut, code := runFG(args...)
		for _, w := range want {
			if code != exitOK || !strings.Contains(errOut, w) {
				t.Errorf("fg %s: exit %d, stderr lacks %q:\n%s", args[0], code, w, errOut)
			}
		}
	}
}
