package bp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// TestDampingIsShared: a damped message step (apply with step s) is, bit
// for bit, families.Damped(old, new, s) of the log-messages (the natural
// parameters of the discrete family) followed by the normalisation: BP
// damps with the rule every EP engine shares.
func TestDampingIsShared(t *testing.T) {
	p, err := NewProblem(randomTree(rand.New(rand.NewPCG(5, 6)), 6))
	if err != nil {
		t.Fatal(err)
	}
	const s = 0.3
	en, err := newEngine(p, &Settings{infer.Settings{Damping: s}}, false)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for e := int32(0); e < int32(p.NumEdges()); e++ {
		old, nw := p.msgOf(en.msg, e), p.msgOf(en.nmsg, e)
		for k := range old {
			old[k], nw[k] = rng.NormFloat64(), rng.NormFloat64()
		}
		normalizeLog(old)
		normalizeLog(nw)
		want := make([]float64, len(old))
		for k := range want {
			want[k] = families.Damped(old[k], nw[k], s)
		}
		normalizeLog(want)
		en.apply(e)
		for k, got := range p.msgOf(en.msg, e) {
			if got != want[k] || math.IsNaN(got) {
				t.Errorf("edge %d state %d: damped %v, families.Damped then normalised %v", e, k, got, want[k])
			}
		}
	}
}
