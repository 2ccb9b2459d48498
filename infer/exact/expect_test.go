package exact

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/infer"
)

// TestExpectPredictive: on a 2-D regression (Gaussian posterior N(μ, Σ) in
// closed form) the probit predictive E[Φ(x*ᵀw)] = Φ(x*ᵀμ / √(1 + x*ᵀΣx*))
// and E[w0 w1] = μ0 μ1 + Σ01, by "quad" (to 10·Tol, and within its own
// estimate) and "is" (within 4 standard errors).
func TestExpectPredictive(t *testing.T) {
	r := newRegression(t, 2, 3, 5)
	p := Problem{Mean: r.m0, Cov: r.s0, LogLik: r.loglik}
	xs := [][]float64{{1, -0.5}, {0.3, 2}, {-1.5, 0.2}}
	var gs []func([]float64) float64
	var want []float64
	for _, x := range xs {
		gs = append(gs, func(w []float64) float64 { return distuv.UnitNormal.CDF(x[0]*w[0] + x[1]*w[1]) })
		xv := mat.NewVecDense(2, x)
		var sx mat.VecDense
		sx.MulVec(r.cov, xv)
		m := mat.Dot(xv, mat.NewVecDense(2, r.mean))
		want = append(want, distuv.UnitNormal.CDF(m/math.Sqrt(1+mat.Dot(xv, &sx))))
	}
	gs = append(gs, func(w []float64) float64 { return w[0] * w[1] })
	want = append(want, r.mean[0]*r.mean[1]+r.cov.At(0, 1))
	const tol = 1e-7
	q, err := Run(context.Background(), p, Settings{Tol: tol})
	if err != nil || q.Status != infer.Done {
		t.Fatal(err)
	}
	vals, errs, err := q.Expect(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	for k := range gs {
		checkClose(t, "quad E[g]", vals[k], want[k], 10*tol)
		checkClose(t, "quad E[g] (vs estimate)", vals[k], want[k], errs[k]+1e-13)
	}
	is, err := Run(context.Background(), p, Settings{Method: "is", Samples: 100_000, Seed: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	vals, errs, err = is.Expect(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	for k := range gs {
		checkClose(t, "is E[g]", vals[k], want[k], 4*errs[k])
	}
	if v, _, _ := is.Expect(context.Background(), gs[3:]); v[0] == 0 {
		t.Error("Expect returned 0")
	}
	if _, _, err := (&Result{}).Expect(context.Background(), gs); err == nil {
		t.Error("Expect on an empty Result: no error")
	}
}
