package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress shows the running method, sweep, convergence measure R and
// elapsed time on one terminal line, rewritten in place at most ten times a
// second (the last sweep of each method is always shown).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	last  time.Time
	label string
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

// update is the fg.Progress callback; engines may call it from several
// goroutines.
func (p *progress) update(label string, iter int, r float64, elapsed time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if label == p.label && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.label, p.last = label, now
	fmt.Fprintf(p.w, "\r\033[K%s  sweep %d  R = %.3g  %.1fs", label, iter, r, elapsed.Seconds())
}

// clearProgress erases the progress line.
func clearProgress(w io.Writer) { fmt.Fprint(w, "\r\033[K") }
