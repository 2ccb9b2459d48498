package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestPanicBecomesInternalError: a panic inside a command is recovered at
// the top: "internal error", exit 1, and no stack unless FG_DEBUG=1.
func TestPanicBecomesInternalError(t *testing.T) {
	t.Setenv("FG_DEBUG", "")
	var errb bytes.Buffer
	e := &env{stdout: nil, stderr: &errb} // writing help to a nil writer panics
	if code := e.main([]string{"help"}); code != exitError {
		t.Errorf("exit %d, want 1", code)
	}
	if s := errb.String(); !strings.Contains(s, "internal error") || strings.Contains(s, "goroutine") {
		t.Errorf("stderr %q", s)
	}
	t.Setenv("FG_DEBUG", "1")
	errb.Reset()
	e.main([]string{"help"})
	if !strings.Contains(errb.String(), "goroutine") {
		t.Errorf("FG_DEBUG=1 should print the stack: %q", errb.String())
	}
}

// TestNoProgressWithoutTerminal: stderr stays empty when it is not a terminal.
func TestNoProgressWithoutTerminal(t *testing.T) {
	_, stderr, code := runFG("run", "testdata/toy.fg")
	if code != exitOK || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p.update("ep", 1, 0.5, 1500*time.Millisecond)
	p.update("ep", 2, 0.25, 1600*time.Millisecond) // within 100 ms: skipped
	p.update("mcmc", 1, 0.1, 0)                    // new method: shown
	out := b.String()
	if !strings.Contains(out, "ep  sweep 1  R = 0.5  1.5s") || strings.Contains(out, "sweep 2") || !strings.Contains(out, "mcmc  sweep 1") {
		t.Errorf("progress %q", out)
	}
	if !strings.HasPrefix(out, "\r\033[K") {
		t.Errorf("progress must rewrite its line: %q", out)
	}
}
