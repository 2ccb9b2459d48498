package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestRunInterrupt sends SIGINT to a run that would not end by itself: fg
// must stop cleanly, print the partial result as canceled and exit 1.
func TestRunInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	cmd := fgCommand(t, "run", "testdata/slow.fg")
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
		if !errors.As(err, &ee) || ee.ExitCode() != exitError {
			t.Errorf("exit: %v, want status 1", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("fg did not stop within 20 s of SIGINT")
	}
	if !strings.Contains(out.String(), "canceled") || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

// TestRunProgressOnTerminal: on a terminal fg run shows the sweep progress
// line, and Ctrl-C typed there cancels the run.
func TestRunProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	cmd := fgCommand(t, "run", "testdata/slow.fg")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	c := &terminal{t: t, pty: f}
	go io.Copy(c, f)
	defer func() { f.Close(); cmd.Process.Kill(); cmd.Wait() }()
	c.expect("ep  sweep ")
	c.expect("R = ")
	f.Write([]byte{3})
	c.expect("canceled")
	c.expect("interrupted")
}
