package ffep

import (
	"math"
	"slices"
	"testing"

	"github.com/fg-infer/fg/families"
)

// gaussProj is the factor N(y; aᵀw, s2) on a sparse projection, with its
// closed-form tilted log normaliser log N(y; m, v + s2).
type gaussProj struct {
	idx   []int32
	a     []float64
	y, s2 float64
}

func (g gaussProj) Projection() ([]int32, []float64) { return g.idx, g.a }
func (g gaussProj) Tilted(m, v float64) (logZ, d1, d2 float64) {
	s := v + g.s2
	return -0.5*math.Log(2*math.Pi*s) - (g.y-m)*(g.y-m)/(2*s), (g.y - m) / s, -1 / s
}
func (g gaussProj) LogF(w []float64) float64 {
	t := 0.0
	for k, i := range g.idx {
		t += g.a[k] * w[i]
	}
	return -0.5*math.Log(2*math.Pi*g.s2) - (g.y-t)*(g.y-t)/(2*g.s2)
}
func (g gaussProj) Derivs(w, grad, hdiag []float64) float64 { return g.LogF(w) }

// TestSiteUpdateIsShared: with approx = exact, a factor's site in the
// cavity's standardised coordinates is families.TiltedSite of the N(0, 1)
// cavity with the derivatives families.MemberDerivs gives, and one update
// with damping δ lands, bit for bit, at families.Damped(old, new) of the
// undamped update in natural parameters.
func TestSiteUpdateIsShared(t *testing.T) {
	f := gaussProj{idx: []int32{0, 2}, a: []float64{0.7, -1.1}, y: 0.4, s2: 0.5}
	p := &Problem{PriorMean: []float64{0.1, -0.2, 0.3}, PriorVar: []float64{1, 2, 0.5}, Factors: []Potential{f}}
	oldL, oldE := []float64{0.3, 0.1, -0.2}, []float64{0.2, 0, 0.05}
	const delta = 0.3
	step := func(d float64) (*engine, []float64, []float64) {
		e := newEngine(p, &Settings{Scheme: Scheme{Kind: Exact}, Passes: 2, Damping: d})
		for i := range oldL { // q = prior × old site
			e.lamQ[i] += oldL[i]
			e.etaQ[i] += oldE[i]
			e.lamS[0][i], e.etaS[0][i] = oldL[i], oldE[i]
		}
		e.update(0)
		if e.res.Updates != 1 {
			t.Fatalf("δ = %g: update skipped (%v)", d, e.res.Errors)
		}
		return e, slices.Clone(e.lamS[0]), slices.Clone(e.etaS[0])
	}
	e, nl, ne := step(1)
	_, dl, de := step(delta)
	mt, vt := 0.0, 0.0
	for k, i := range f.idx {
		mt += f.a[k] * e.mu[i]
		vt += f.a[k] * f.a[k] * e.sd[i] * e.sd[i]
	}
	_, d1, d2 := f.Tilted(mt, vt)
	for k, i := range f.idx {
		d1z, d2z := families.MemberDerivs(f.a[k]*e.sd[i], d1, d2)
		want, ok := families.TiltedSite(families.Gaussian{Prec: 1}, d1z, d2z, 1)
		if !ok || e.w.s.B[i] != -want.Prec/2 || e.w.s.A[i] != want.Shift {
			t.Errorf("coordinate %d: site (A, B) = (%v, %v), families.TiltedSite %+v", i, e.w.s.A[i], e.w.s.B[i], want)
		}
	}
	for i := range oldL {
		if dl[i] != families.Damped(oldL[i], nl[i], delta) || de[i] != families.Damped(oldE[i], ne[i], delta) {
			t.Errorf("coordinate %d: damped site (%v, %v), families.Damped (%v, %v)", i, dl[i], de[i],
				families.Damped(oldL[i], nl[i], delta), families.Damped(oldE[i], ne[i], delta))
		}
	}
}
