package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/fg-infer/fg/infer"
)

// progress shows the running method's progress on one terminal line,
// rewritten in place at most ten times a second (a new method and the last
// draw of a sampler are always shown):
//
//	ep_kl  sweep 12  R = 0.0031  0.4s
//	mcmc  draw 12288/44000  1.1s, 2.8s left
//	exact  evaluation 131072  error = 0.041  0.9s
//	learn  evaluation 7  -log Z = 18.48  0.3s
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	last  time.Time
	label string
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

// update is the fg.Progress callback; samplers call it from several
// goroutines.
func (p *progress) update(r infer.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	final := r.Total > 0 && r.Done == r.Total
	if r.Label == p.label && now.Sub(p.last) < 100*time.Millisecond && !final {
		return
	}
	p.label, p.last = r.Label, now
	fmt.Fprint(p.w, "\r\033[K"+progressText(r))
}

// progressText renders one report.
func progressText(r infer.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s %d", r.Label, r.Unit, r.Done)
	if r.Total > 0 {
		fmt.Fprintf(&b, "/%d", r.Total)
	}
	if r.Measure != "" && !math.IsNaN(r.R) {
		fmt.Fprintf(&b, "  %s = %.3g", r.Measure, r.R)
	}
	fmt.Fprintf(&b, "  %.1fs", r.Elapsed.Seconds())
	if left, ok := r.Remaining(); ok {
		fmt.Fprintf(&b, ", %.1fs left", left.Seconds())
	}
	return b.String()
}

// clearProgress erases the progress line.
func clearProgress(w io.Writer) { fmt.Fprint(w, "\r\033[K") }
