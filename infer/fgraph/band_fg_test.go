package fgraph_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	fg "github.com/fg-infer/fg"
	"github.com/fg-infer/fg/infer/fgraph"
)

// TestBandPrecisionFromSource: the 900-step near-constant-velocity chain
// of TestBandJointPrecision written in fg (examples/tracking.fg's
// `x[t] ~ mvnormal(A @ x[t - 1], Q)` with q = 10⁻³, a reading of
// x − 0.5 y with variance 10⁶ a step) and run through the Go API under ep
// and exact (the band solve, reached through compile's scalar
// conditionals by chol(Q)) equals the 256-bit Kalman smoother of the same
// chain to 1e-9: means in standard deviations, relative variances, log Z
// (measured 5e-12, 1.2e-11, 1e-11; the information form missed by 7.5e-5,
// 1.3e-4 and 6.6e-5).
func TestBandPrecisionFromSource(t *testing.T) {
	const T, q, r = 900, 1e-3, 1e6
	y, mean, vr, logp := fgraph.CVGaussBig(T, q, r)
	var b strings.Builder
	fmt.Fprintf(&b, "model cv\nparam T = %d\nparam q = %g\n", T, q)
	b.WriteString(`data A = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]]
data Q = q * [[1 / 3, 0, 1 / 2, 0], [0, 1 / 3, 0, 1 / 2], [1 / 2, 0, 1, 0], [0, 1 / 2, 0, 1]]
`)
	fmt.Fprintf(&b, "data y: real[%d] = [", T)
	for i, v := range y {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%g", v)
	}
	fmt.Fprintf(&b, `]
latent x: real[T, 4]
x[0] ~ normal([0, 0, 0, 0], [1, 1, 0.01, 0.01])
for t in 1..T {
  x[t] ~ mvnormal(A @ x[t - 1], Q)
}
for t in 0..T {
  y[t] ~ normal(x[t, 0] - 0.5 * x[t, 1], %g)
}
infer ep
infer exact
`, r)
	m, err := fg.LoadBytes("cv.fg", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"ep", "exact"} {
		rr := res.Get(label)
		if !rr.Status().OK() {
			t.Fatalf("%s: %s %s", label, rr.Status(), rr.Message())
		}
		dm, dv := 0.0, 0.0
		for i := range mean {
			mi, err1 := rr.Mean("x", i)
			vi, err2 := rr.Variance("x", i)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			dm = math.Max(dm, math.Abs(mi-mean[i])/math.Sqrt(vr[i]))
			dv = math.Max(dv, math.Abs(vi-vr[i])/vr[i])
		}
		z, ok := rr.LogZ()
		t.Logf("%s: max |Δmean|/sd %.2g, max |Δvar|/var %.2g, log Z %.12g vs %.12g (%.2g)", label, dm, dv, z, logp, z-logp)
		if !ok || !(dm <= 1e-9) || !(dv <= 1e-9) || !(math.Abs(z-logp) <= 1e-9) {
			t.Errorf("%s differs from the 256-bit Kalman smoother: mean %.2g sd, variance %.2g relative, log Z %.2g", label, dm, dv, z-logp)
		}
	}
}
