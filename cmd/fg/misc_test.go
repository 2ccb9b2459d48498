package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fg-infer/fg/infer"
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
	p.update(infer.Progress{Label: "ep", Unit: "sweep", Done: 1, Measure: "R", R: 0.5, Elapsed: 1500 * time.Millisecond})
	p.update(infer.Progress{Label: "ep", Unit: "sweep", Done: 2, Measure: "R", R: 0.25, Elapsed: 1600 * time.Millisecond})  // within 100 ms: skipped
	p.update(infer.Progress{Label: "mcmc", Unit: "draw", Done: 1000, Total: 4000, R: math.NaN(), Elapsed: time.Second})     // new method: shown
	p.update(infer.Progress{Label: "mcmc", Unit: "draw", Done: 4000, Total: 4000, R: math.NaN(), Elapsed: 4 * time.Second}) // the last draw: shown
	out := b.String()
	for _, want := range []string{"ep  sweep 1  R = 0.5  1.5s", "mcmc  draw 1000/4000  1.0s, 3.0s left", "mcmc  draw 4000/4000  4.0s, 0.0s left"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "sweep 2") {
		t.Errorf("progress %q: a report within 100 ms of the last was shown", out)
	}
	if !strings.HasPrefix(out, "\r\033[K") {
		t.Errorf("progress must rewrite its line: %q", out)
	}
}

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		r    infer.Progress
		want string
	}{
		{infer.Progress{Label: "exact", Unit: "evaluation", Done: 131072, Measure: "error", R: 0.0412, Elapsed: 900 * time.Millisecond},
			"exact  evaluation 131072  error = 0.0412  0.9s"},
		{infer.Progress{Label: "learn", Unit: "evaluation", Done: 7, Measure: "-log Z", R: 18.4812, Elapsed: 300 * time.Millisecond},
			"learn  evaluation 7  -log Z = 18.5  0.3s"},
	} {
		if got := progressText(c.r); got != c.want {
			t.Errorf("progressText = %q, want %q", got, c.want)
		}
	}
}
