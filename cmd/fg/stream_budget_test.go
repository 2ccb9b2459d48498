package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamedWeightsCharged: weights of 2²⁶ elements (libsvm's largest
// index) streamed by `fg check` are charged at 24 bytes each (1.5 GiB)
// against the memory budget before anything is allocated: refused under
// FG_MEMORY_BUDGET=1G at the latent's type, accepted under 2G.
func TestStreamedWeightsCharged(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wide.svm"), []byte(fmt.Sprintf("1 1:0.5 %d:1\n-1 2:1\n", 1<<26)), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "wide.fg")
	src := "model wide\ndata X = libsvm(\"wide.svm\")\ndata y = libsvm_labels(\"wide.svm\")\nlatent w: real[cols(X)] ~ normal(0, 1)\nfor i in 0..len(y) {\n  y[i] ~ probit(dot(X[i], w))\n}\ninfer ep { passes = 1 }\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "wide.fg:4:11: error: latent `w` has 6.7108864e+07 elements: about 1.5 GiB through streaming EP at 24 bytes each, more than the memory budget of 1 GiB"
	for _, budget := range []string{"1G", "2G"} {
		cmd := fgCommand(t, "check", model)
		cmd.Env = append(cmd.Env, "FG_MEMORY_BUDGET="+budget)
		out, _ := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if refused := strings.Contains(string(out), want); budget == "1G" && (code != exitError || !refused) {
			t.Errorf("under %s: exit %d, want 1 and %q:\n%s", budget, code, want, out)
		} else if budget == "2G" && (code != exitOK || refused) {
			t.Errorf("under %s: exit %d:\n%s", budget, code, out)
		}
	}
}
