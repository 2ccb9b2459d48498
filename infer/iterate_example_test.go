package infer_test

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer"
)

// An engine hands Iterate one sweep; Iterate owns the loop and the status.
// Here a damped fixed-point iteration x ← x + δ(cos x − x) with δ = 0.5:
// the change a sweep makes is δ times the undamped change, which Iterate
// judges.
func ExampleIterate() {
	x := 0.0
	out := infer.Iterate(context.Background(), infer.Loop{Tol: 1e-6, Damping: 0.5, MaxIter: 100},
		func(ctx context.Context, iter int, damping float64) (infer.Sweep, error) {
			next := x + damping*(math.Cos(x)-x)
			change := math.Abs(next - x)
			x = next
			return infer.Sweep{Change: change, Updates: 1}, nil
		})
	fmt.Printf("%v after %d sweeps: x = %.6f\n", out.Status, out.Iterations, x)
	// Output: converged after 10 sweeps: x = 0.739085
}
