package main

import (
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestRunInterrupt sends SIGINT to a run that would not end by itself: fg
// must stop cleanly, print the partial result as canceled and exit 1.
func TestRunInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	out, errb, code := interruptRun(t, "run", "testdata/slow.fg")
	if code != exitError {
		t.Errorf("exit %d, want status 1", code)
	}
	if !strings.Contains(out, "canceled") || !strings.Contains(errb, "interrupted") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errb)
	}
}

// TestRunProgressOnTerminal: on a terminal fg run shows the sweep progress
// line, and Ctrl-C typed there cancels the run.
func TestRunProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	c := runOnTerminal(t, "run", "testdata/slow.fg")
	c.expect("ep  sweep ")
	c.expect("R = ")
	c.pty.Write([]byte{3})
	c.expect("canceled")
	c.expect("interrupted")
}

// TestGoldProgressOnTerminal: on a terminal, exact reports its evaluations
// and error estimate (its line no longer freezes), MCMC its draws out of
// the total with the time left, and the line is erased before the table.
func TestGoldProgressOnTerminal(t *testing.T) {
	c := runOnTerminal(t, "run", "testdata/toy.fg", "--method", "exact",
		"--method", "mcmc as long { samples = 40000, seed = 2 }", "--only", "mcmc", "--only", "exact", "--only", "long")
	c.expect("mcmc  draw ")
	c.expect("/20000")
	c.expect("exact  evaluation ")
	c.expect("error = ")
	c.expect("long  draw ")
	c.expect("s left")
	c.expect("\r\033[K")
	c.expect("variable")
}

// runOnTerminal runs `fg args...` on a pseudo-terminal (skipping the test
// when there is none); the process is killed when the test ends.
func runOnTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := fgCommand(t, args...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	c := &terminal{t: t, pty: f}
	go io.Copy(c, f)
	t.Cleanup(func() { f.Close(); cmd.Process.Kill(); cmd.Wait() })
	return c
}
