package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exitModel is toy5 with an infer line per outcome under test.
const exitModel = `model exits
data X: real[5, 2] = [[-2, 1], [-1, 2], [1, -1], [2, -2], [3, 1]]
data y: spin[5] = [-1, -1, 1, 1, -1]
latent w: real[2] ~ normal(0, 1)
for i in 0..5 { y[i] ~ step(dot(X[i], w), 0.2) }
`

// runExit runs fg run FILE ARGS... in a subprocess and returns stdout and
// the exit status.
func runExit(t *testing.T, src string, args ...string) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.fg")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := fgCommand(t, append([]string{"run", path}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		if strings.Contains(errb.String(), "goroutine ") {
			t.Errorf("stack trace on stderr:\n%s", errb.String())
		}
		return out.String(), ee.ExitCode()
	}
	t.Fatal(err)
	return "", 0
}

// TestExitStatus: 0 when every method succeeded (converged, done or
// iteration_limit); 3 when one failed or stalled, with the failed result
// carrying no numbers (— in the table, null in JSON).
func TestExitStatus(t *testing.T) {
	cases := []struct {
		name, infer string
		code        int
		want        []string
	}{
		{"success", "infer ep\ninfer ep as short { max_iter = 2 }\n", exitOK, []string{"converged", "iteration_limit"}},
		// d = 4 is above exact's quadrature limit: the method fails.
		{"failed", "latent v: real[4] ~ normal(0, 1)\nfactor exp(-sum(v^2))\ninfer ep as gq { approx = gq }\ninfer exact\n", exitMethod,
			[]string{"failed", "supports dimension d ≤ 3"}},
		{"stalled", "latent c: real[50] ~ normal(0, 1)\nfor i in 0..49 { factor exp(-2 * (c[i + 1] - c[i])^2) }\nfactor exp(-(c[0] - 3)^2)\ninfer ep as gq { approx = gq, family = factorized }\n", exitMethod,
			[]string{"stalled", "skipped"}},
		// Every update skipped: the posterior would be the prior (a run
		// once reported 196 skipped updates with status converged).
		{"all skipped", "latent c: real[50] ~ normal(0, 1)\nfor i in 0..49 { factor exp(-2 * (c[i + 1] - c[i])^2) }\ninfer ep as gq { approx = gq, family = factorized }\n", exitMethod,
			[]string{"failed", "every update was skipped"}},
	}
	for _, c := range cases {
		out, code := runExit(t, exitModel+c.infer)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, code, c.code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, out)
			}
		}
	}
}

// TestFailedResultJSON: a failed method's log evidence is null (it was 0),
// its variables empty, and the exit status 3.
func TestFailedResultJSON(t *testing.T) {
	out, code := runExit(t, exitModel+"latent v: real[4] ~ normal(0, 1)\nfactor exp(-sum(v^2))\ninfer exact\n", "--json")
	if code != exitMethod {
		t.Errorf("exit %d, want %d", code, exitMethod)
	}
	if !strings.Contains(out, `"status": "failed"`) || !strings.Contains(out, `"log_evidence": null`) || !strings.Contains(out, `"variables": {}`) {
		t.Errorf("failed result carries numbers:\n%s", out)
	}
}

// TestExactInterrupt: SIGINT during exact's quadrature reports canceled
// (it said "failed: context canceled") and exits 1 like every interrupted run.
func TestExactInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	out, errb, code := interruptRun(t, "run", "testdata/slow_exact.fg")
	if code != exitError || !strings.Contains(out, "canceled") || strings.Contains(out, "failed") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
}

// interruptRun starts fg with args in a subprocess, sends SIGINT after a
// second and returns its stdout, stderr and exit status; it fails the test
// if fg has not stopped 20 s later.
func interruptRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := fgCommand(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("fg did not stop within 20 s of SIGINT")
	}
	return "", "", 0
}
