package ep

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// TestRunProtocol checks the protocol Run and RunFITC share (runEP): a nil
// problem is an error without a result, a context canceled before the
// start returns a canceled result (partial: its numbers are not read)
// together with ctx.Err(), and a run records its time.
func TestRunProtocol(t *testing.T) {
	if r, err := Run(context.Background(), nil, Settings{}); r != nil || err == nil {
		t.Errorf("Run(nil) = %v, %v; want an error", r, err)
	}
	if r, err := RunFITC(context.Background(), nil, Settings{}); r != nil || err == nil {
		t.Errorf("RunFITC(nil) = %v, %v; want an error", r, err)
	}
	X := mat.NewDense(6, 1, []float64{-2, -1, -0.5, 0.5, 1, 2})
	Z := mat.NewDense(3, 1, []float64{-1, 0, 1})
	y := []float64{-1, -1, 1, -1, 1, 1}
	k := kernel.SE{Lengthscale: 1, Var: 1}
	fp := fitcProblem(k, X, Z, y, Probit{})
	dp := &Problem{Cov: k.Matrix(X)}
	for i, yi := range y {
		dp.Sites = append(dp.Sites, Site{Lik: Probit{}, Y: yi, Index: i})
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	type out struct {
		status  infer.Status
		mean    []float64
		runtime float64
		err     error
	}
	runs := map[string]func(context.Context) out{
		"dense": func(ctx context.Context) out {
			r, err := Run(ctx, dp, Settings{})
			return out{r.Status, r.Mean, r.Runtime.Seconds(), err}
		},
		"fitc": func(ctx context.Context) out {
			r, err := RunFITC(ctx, fp, Settings{})
			return out{r.Status, r.Mean, r.Runtime.Seconds(), err}
		},
	}
	for name, run := range runs {
		if o := run(canceled); o.status != infer.Canceled || !errors.Is(o.err, context.Canceled) {
			t.Errorf("%s canceled: status %v, err %v", name, o.status, o.err)
		}
		o := run(context.Background())
		if o.err != nil || o.status != infer.Converged || len(o.mean) != 6 || math.IsNaN(o.mean[0]) || !(o.runtime > 0) {
			t.Errorf("%s: status %v, mean %v, runtime %g, err %v", name, o.status, o.mean, o.runtime, o.err)
		}
	}
}
