package ffep

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/internal/testkit"
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

// gaussProjExact is gaussProj with its own site in the projection
// (GaussianProjected): approx = exact takes the leave-one-out form.
type gaussProjExact struct{ gaussProj }

func (g gaussProjExact) GaussianSite() (families.Gaussian, bool) {
	return families.Gaussian{Shift: g.y / g.s2, Prec: 1 / g.s2}, true
}

// TestFFTightMemberSites: one factor N(y; aᵀw, r) with a = (1, 1e-6,
// −1e-6) on independent priors and r = 1e-3 … 1e-13, under approx = exact:
// ADF and EP give the closed-form posterior (testkit.GaussianSite; one site
// with the prior as cavity is exact) — variances within 1e-10 relative,
// means within 1e-10 sd plus 4ε|E w| (the first weight's sd is ~1e-6).
// The first member's site is tight; the derivative route (gaussProj, which
// has no GaussianSite) puts its variance more than 1e-6 off at r = 1e-12,
// which the test also checks, so it fails if the exact form is not used.
func TestFFTightMemberSites(t *testing.T) {
	mu, p, a := []float64{0.3, -0.5, 1.1}, []float64{2, 0.8, 1.5}, []float64{1, 1e-6, -1e-6}
	const y = 1.3
	for e := 3; e <= 13; e++ {
		r := math.Pow(10, -float64(e))
		mean, vr, _ := testkit.GaussianSite(mu, p, a, 0, y, r)
		f := gaussProj{idx: []int32{0, 1, 2}, a: a, y: y, s2: r}
		for _, passes := range []int{1, 3} {
			res, err := RunFF(context.Background(), &Problem{PriorMean: mu, PriorVar: p, Factors: []Potential{gaussProjExact{f}}},
				&Settings{Scheme: Scheme{Kind: Exact}, Passes: passes, Tol: 1e-12})
			if err != nil || !res.Status.HasNumbers() || res.Skipped != 0 {
				t.Fatalf("r = %g, %d passes: %v, %+v", r, passes, err, res)
			}
			testkit.CheckMarginals(t, fmt.Sprintf("r = %g, %d passes", r, passes), res.Mean, res.Var, mean, vr, 1e-10)
		}
		if e == 12 {
			res, err := RunFF(context.Background(), &Problem{PriorMean: mu, PriorVar: p, Factors: []Potential{f}}, &Settings{Scheme: Scheme{Kind: Exact}, Passes: 1})
			if err != nil {
				t.Fatal(err)
			}
			off := math.Abs(res.Var[0]/vr[0] - 1)
			if !(off > 1e-6) {
				t.Errorf("derivative route at r = 1e-12: variance %.3g off, expected its rounding (> 1e-6)", off)
			}
			t.Logf("derivative route at r = 1e-12: variance of w[0] %.3g relative off", off)
		}
	}
}
