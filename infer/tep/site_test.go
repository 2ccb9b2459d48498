package tep

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
)

// TestSiteDampingIsShared: t-EP's projection is its own (escort moment
// matching), but its damping is the one every EP engine shares: a site set
// with damping δ (the parallel schedule's step) lands, bit for bit, at
// families.Damped(old, new) of its relative scalars (cⱼ, dⱼ, eⱼ).
func TestSiteDampingIsShared(t *testing.T) {
	p := &Problem{Nu: 5, Scale: mat.NewSymDense(2, []float64{1, 0.3, 0.3, 2}), Sites: []Site{
		{Lik: factor.Probit{}, Y: 1, Proj: []float64{1, 0.5}},
		{Lik: factor.Step{Eps: 0.1}, Y: -1, Proj: []float64{-0.4, 1}},
		{Lik: factor.Probit{}, Y: 1, Proj: []float64{0.8, -0.6}},
	}}
	st, err := newState(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sequentialSweep(context.Background(), st, []int{0, 1, 2}, 1, &Result{}) { // non-zero old sites
		t.Fatal("first sweep failed")
	}
	const j, delta = 1, 0.3
	pr, ok := st.propose(j)
	if !ok {
		t.Fatal("proposal refused")
	}
	oc, od, oe := st.c[j], st.d[j], st.e[j]
	nc, nd, ne := 1-1/pr.S, pr.R/pr.S, pr.Kappa/pr.S
	st.set(j, pr, delta)
	if st.c[j] != families.Damped(oc, nc, delta) || st.d[j] != families.Damped(od, nd, delta) || st.e[j] != families.Damped(oe, ne, delta) {
		t.Errorf("damped site (%v, %v, %v), families.Damped (%v, %v, %v)", st.c[j], st.d[j], st.e[j],
			families.Damped(oc, nc, delta), families.Damped(od, nd, delta), families.Damped(oe, ne, delta))
	}
	if oc == nc || od == nd || oe == ne {
		t.Error("test is vacuous: the proposal does not change the site")
	}
}
