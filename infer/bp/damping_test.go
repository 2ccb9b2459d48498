package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/jtree"
)

// TestDampingJudgedUndamped: with a damping step of 1e-7 every pass moves
// the beliefs by about 1e-7 of the undamped change; judged on that, BP
// "converged" after one pass at the initial beliefs. A step below
// infer.MinDamping is refused; at the floor, divided by the step, the
// measure runs out of passes. A moderate step still converges on a tree, to
// the exact marginals (junction tree).
func TestDampingJudgedUndamped(t *testing.T) {
	g := randomTree(rand.New(rand.NewPCG(3, 4)), 8)
	if _, err := Run(context.Background(), g, Settings{infer.Settings{Damping: 1e-7, MaxIter: 50}}); err == nil {
		t.Error("step 1e-7 accepted")
	}
	res, err := Run(context.Background(), g, Settings{infer.Settings{Damping: infer.MinDamping, MaxIter: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.IterationLimit || res.Iterations != 50 {
		t.Errorf("step %g: %v after %d passes, want iteration_limit after 50", infer.MinDamping, res.Status, res.Iterations)
	}
	res, err = Run(context.Background(), g, Settings{infer.Settings{Damping: 0.3, Tol: 1e-12}})
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("step 0.3: %v %v", res.Status, err)
	}
	ex, err := jtree.Run(context.Background(), g, jtree.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for v := range g.Vars {
		for k, p := range ex.Marginals[v] {
			if d := math.Abs(res.Marginals[v][k] - p); !(d <= 1e-9) {
				t.Errorf("var %d: %v, exact %v", v, res.Marginals[v], ex.Marginals[v])
			}
		}
	}
}
