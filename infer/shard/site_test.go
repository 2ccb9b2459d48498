package shard

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fg-infer/fg/families"
)

// TestDampingIsShared: a shard's damped replacement (LocalUpdate with
// damping δ) lands, bit for bit, at families.Damped(old, proposal) in every
// entry of the precision and the shift: the dense natural parameters use
// the damping every EP engine shares.
func TestDampingIsShared(t *testing.T) {
	sites, cov := probitData(120, 3, 6)
	shards := Split(sites, 4)
	prior, _ := Prior(nil, cov)
	s := tight()
	old, err := LocalUpdate(context.Background(), prior, families.FlatGaussianDense(3), shards[1], s.Local, 1) // a non-zero old site
	if err != nil || old.SkipReason != "" {
		t.Fatalf("first update: %v %s", err, old.SkipReason)
	}
	other, err := LocalUpdate(context.Background(), prior, families.FlatGaussianDense(3), shards[2], s.Local, 1)
	if err != nil || other.SkipReason != "" {
		t.Fatalf("other shard: %v %s", err, other.SkipReason)
	}
	global := prior.Mul(old.Site).Mul(other.Site) // the cavity differs from the old one
	const delta = 0.3
	u, err := LocalUpdate(context.Background(), global, old.Site, shards[1], s.Local, delta)
	if err != nil || u.SkipReason != "" {
		t.Fatalf("update: %v %s", err, u.SkipReason)
	}
	check := func(what string, got, o, p []float64) {
		for i := range got {
			if got[i] != families.Damped(o[i], p[i], delta) {
				t.Errorf("%s[%d] = %v, families.Damped(%v, %v) = %v", what, i, got[i], o[i], p[i], families.Damped(o[i], p[i], delta))
			}
		}
	}
	check("precision", u.Site.Prec.RawSymmetric().Data, old.Site.Prec.RawSymmetric().Data, u.Proposal.Prec.RawSymmetric().Data)
	check("shift", u.Site.Shift, old.Site.Shift, u.Proposal.Shift)
	if d := floats.Distance(u.Proposal.Shift, old.Site.Shift, 2); !(d > 1e-3) {
		t.Errorf("test is vacuous: the proposal is within %g of the old site", d)
	}
}
