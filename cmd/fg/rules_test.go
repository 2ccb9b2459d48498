package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
)

// TestRulesCommand: fg rules prints the derived table and the typed factor
// graph's per-edge rules; --markdown the ones embedded in docs/language.md
// and docs/families.md.
func TestRulesCommand(t *testing.T) {
	out, _, code := runFG("rules")
	if code != exitOK || out != factor.Text()+"\n"+factor.NetText() || !regexp.MustCompile(`\npoisson_log +likelihood +stable`).MatchString(out) {
		t.Errorf("fg rules: exit %d\n%s", code, out)
	}
	out, _, code = runFG("rules", "--markdown")
	if code != exitOK || out != factor.Markdown()+"\n"+factor.NetMarkdown() {
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

// TestREPLRulesAndWarnings: the REPL's :rules prints the table, and a
// typed infer line with an experimental rule prints its warning once.
func TestREPLRulesAndWarnings(t *testing.T) {
	in := strings.Join([]string{":rules",
		"data y: spin[1] = [1]", "latent w: real[1] ~ normal(0, 1)", "y[0] ~ probit(w[0])",
		"infer ep { divergence = alpha(0.5) }", "infer exact", ""}, "\n")
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(in), stdout: &out, stderr: &errb}
	if code := e.main([]string{"repl"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), factor.Text()) {
		t.Errorf(":rules did not print the table:\n%s", out.String())
	}
	if n := strings.Count(errb.String(), "warning: ep alpha uses an experimental rule for probit (likelihood)"); n != 1 {
		t.Errorf("warning printed %d times:\n%s", n, errb.String())
	}
}
