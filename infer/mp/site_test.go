package mp

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// TestDampingIsShared: from the same state, one factor update with damping
// δ lands, bit for bit, at families.Damped(old, new) of the undamped
// update, in every natural parameter of every message the factor sends:
// the typed-graph engine uses the damping every EP engine shares.
func TestDampingIsShared(t *testing.T) {
	net := &graph.Net{}
	p := net.AddVar(graph.NetVar{Name: "p", Family: graph.Beta})
	net.AddFactor(prior(factor.Beta{}, graph.VarEdge("x", p), graph.DataEdge("a", 2), graph.DataEdge("b", 3)))
	for _, y := range []float64{1, 0, 1, 1} {
		net.AddFactor(obs(factor.Bernoulli{}, y, graph.VarEdge("p", p)))
	}
	const delta = 0.3
	engines := [2]*engine{newEngine(net, Options{Alpha: 0.5, Damping: delta}), newEngine(net, Options{Alpha: 0.5, Damping: delta})}
	for _, e := range engines { // the same non-trivial state in both
		if _, err := e.sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	const f = 2
	old := append([]float64(nil), engines[0].fs[f].msg[0]...)
	engines[0].opt.Damping = 1
	for _, e := range engines {
		if err := e.update(e.fs[f]); err != nil {
			t.Fatal(err)
		}
	}
	nw, dp := engines[0].fs[f].msg[0], engines[1].fs[f].msg[0]
	changed := false
	for i := range old {
		if dp[i] != families.Damped(old[i], nw[i], delta) {
			t.Errorf("natural parameter %d: damped %v, families.Damped(%v, %v) = %v", i, dp[i], old[i], nw[i], families.Damped(old[i], nw[i], delta))
		}
		changed = changed || old[i] != nw[i]
	}
	if !changed {
		t.Error("test is vacuous: the update does not change the message")
	}
}
