package ep

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/internal/mathx"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// TestStepSlopeAgainstDifferences: the closed-form slope of the step
// likelihood's relaxed cost (stepSlope) equals a plain central difference
// of relaxedKL, (K(b + h) − K(b − h))/(2h) with h = 10⁻⁵ s (s the scale of
// diffSlope), to 1e-6 relative (its O(h²) truncation), and diffSlope's
// Richardson difference to 1e-7 relative, on the 360 cases of
// relaxedCases. Both differences carry an absolute rounding floor: K is a
// sum of terms of order 1–10 that cancel to a small KL, so its rounding
// error (~1e-15) divided by h (≥ 3e-7 here) bounds them at ~1e-8 for the
// plain difference and ~1e-10 for Richardson's (h 100 times larger); the
// tolerances add those floors. The quadrature test below is the tight one.
func TestStepSlopeAgainstDifferences(t *testing.T) {
	for _, c := range relaxedCases() {
		s := Site{Lik: Step{Eps: c.eps}, Y: c.y}
		tc, nc := 1/c.lam, c.h/c.lam
		got := relaxedSlope(s, c.mOld, tc, nc, c.b)
		tt := tc + c.b
		hh := (nc + c.b*c.mOld) / tt
		e := 1e-5 / ((hh-c.mOld)*(hh-c.mOld) + 1/tt)
		fd := (relaxedKL(s, c.mOld, tc, nc, c.b+e) - relaxedKL(s, c.mOld, tc, nc, c.b-e)) / (2 * e)
		rich := diffSlope(s, c.mOld, tc, nc, c.b)
		if !(math.Abs(got-fd) <= 1e-6*math.Abs(got)+1e-8) || !(math.Abs(got-rich) <= 1e-7*math.Abs(got)+1e-10) {
			t.Errorf("%+v: closed form %.12g, central difference %.12g, Richardson %.12g", c, got, fd, rich)
		}
	}
}

// TestProbitSlopeAgainstQuadrature checks diffSlope for the probit
// likelihood against the covariance formula of relaxed_slope.go evaluated by
// brute-force Gauss–Legendre quadrature (no closed forms):
//
//	dKL/db = Cov_P(log p(y|f) − (f − h̃)²/(2λ̃) + (f − m̂)²/(2v̂), −½ (f − m_i)²),
//
// with m̂, v̂ the quadrature moments of P, to 1e-7 relative plus an
// absolute 1e-10, the rounding floor of a difference of K (1e-15 over the
// step 10⁻³ s ≥ 3e-5 here). It also checks that the formula and the closed
// form agree for the step likelihood to 1e-8 relative (floor 1e-12), which
// validates the formula itself independently of stepSlope's algebra.
func TestProbitSlopeAgainstQuadrature(t *testing.T) {
	covSlope := func(logp func(float64) float64, h, lam, mOld, b float64, cut []float64) float64 {
		lt := 1 / (1/lam + b)
		ht := lt * (h/lam + b*mOld)
		logP := func(f float64) float64 { return logp(f) - 0.5*(f-ht)*(f-ht)/lt }
		_, mp, vp, _, _ := quadKL(logP, logP, ht-20*math.Sqrt(lt), ht+20*math.Sqrt(lt), cut)
		phi := func(f float64) float64 { return logP(f) + 0.5*(f-mp)*(f-mp)/vp }
		g := func(f float64) float64 { return -0.5 * (f - mOld) * (f - mOld) }
		// E_P[φ g] − E_P[φ] E_P[g] by quadrature: the KL helper's weights
		// are reused through three expectations.
		ex := func(fn func(float64) float64) float64 {
			return expectP(logP, fn, ht-20*math.Sqrt(lt), ht+20*math.Sqrt(lt), cut)
		}
		return ex(func(f float64) float64 { return phi(f) * g(f) }) - ex(phi)*ex(g)
	}
	for _, y := range []float64{1, -1} {
		for _, h := range []float64{-1.5, 0.3, 2} {
			for _, lam := range []float64{0.5, 3} {
				for _, mOld := range []float64{-2, 0.7, 4} {
					for _, b := range []float64{0, 0.05, 0.3, 2} {
						tc, nc := 1/lam, h/lam
						s := Site{Lik: Probit{}, Y: y}
						want := covSlope(func(f float64) float64 { return mathx.LogPhi(y * f) }, h, lam, mOld, b, nil)
						got := relaxedSlope(s, mOld, tc, nc, b)
						if !(math.Abs(got-want) <= 1e-7*math.Abs(want)+1e-10) {
							t.Errorf("probit y %g h %g lam %g mOld %g b %g: diffSlope %.12g, quadrature %.12g", y, h, lam, mOld, b, got, want)
						}
						eps := 0.2
						st := Site{Lik: Step{Eps: eps}, Y: y}
						logStep := func(f float64) float64 {
							if y*f >= 0 {
								return math.Log(1 - eps)
							}
							return math.Log(eps)
						}
						want = covSlope(logStep, h, lam, mOld, b, []float64{0})
						got = relaxedSlope(st, mOld, tc, nc, b)
						if !(math.Abs(got-want) <= 1e-8*math.Max(math.Abs(want), 1e-4)) {
							t.Errorf("step y %g h %g lam %g mOld %g b %g: stepSlope %.12g, quadrature %.12g", y, h, lam, mOld, b, got, want)
						}
					}
				}
			}
		}
	}
}

// expectP returns E_P[fn] for P ∝ exp(logP) on [lo, hi] by the composite
// Gauss–Legendre rule of quadKL (panels split at cut).
func expectP(logP, fn func(float64) float64, lo, hi float64, cut []float64) float64 {
	var num, den float64
	mx := math.Inf(-1)
	legendrePanels(lo, hi, cut, func(x, w float64) { mx = math.Max(mx, logP(x)) })
	legendrePanels(lo, hi, cut, func(x, w float64) {
		p := w * math.Exp(logP(x)-mx)
		num += p * fn(x)
		den += p
	})
	return num / den
}

// legendrePanels calls fn(x, w) for the nodes and weights of 40-point
// Gauss–Legendre rules on 40 panels per interval of [lo, hi] split at cut.
func legendrePanels(lo, hi float64, cut []float64, fn func(x, w float64)) {
	edges := []float64{lo}
	for _, c := range cut {
		if c > lo && c < hi {
			edges = append(edges, c)
		}
	}
	edges = append(edges, hi)
	const panels, nodes = 40, 40
	xs, ws := make([]float64, nodes), make([]float64, nodes)
	for e := 0; e+1 < len(edges); e++ {
		a, b := edges[e], edges[e+1]
		h := (b - a) / panels
		for k := 0; k < panels; k++ {
			quad.Legendre{}.FixedLocations(xs, ws, a+float64(k)*h, a+float64(k+1)*h)
			for j := range xs {
				fn(xs[j], ws[j])
			}
		}
	}
}

// TestRelaxedLineSearchStationary: the returned b is a stationary point of
// Q(b) = KL(b) + c b, |Q'(b)| ≤ 1e-8·c with Q' = relaxedSlope + c, or b = 0
// with Q'(0) ≥ 0 (a boundary minimum with the right sign), for the b = 0
// cases of relaxedCases, c ∈ {20, 1, 0.1, 0.01}, and the step, probit and
// numeric (Gauss–Hermite probit) likelihoods. Q' is also checked by a
// plain central difference of Q at the returned b (1e-5·c: O(h²) error).
func TestRelaxedLineSearchStationary(t *testing.T) {
	interior := map[string]int{}
	for _, cpen := range []float64{20, 1, 0.1, 0.01} {
		r := rule{SiteUpdate: families.SiteUpdate{Power: 1, Damping: 1}, relaxed: true, c: cpen}
		for _, c := range relaxedCases() {
			if c.b != 0 {
				continue
			}
			liks := []Likelihood{Step{Eps: c.eps}}
			if c.eps == 0.2 {
				liks = append(liks, Probit{}, Numeric{Kind: "probit", Scheme: ffep.Scheme{Kind: ffep.GH, N: 64}, LogLik: probitLogLik, Binary: true})
			}
			for _, lik := range liks {
				s := Site{Lik: lik, Y: c.y}
				tc, nc := 1/c.lam, c.h/c.lam
				b := r.lineSearch(s, c.mOld, tc, nc)
				dq := relaxedSlope(s, c.mOld, tc, nc, b) + cpen
				if b == 0 {
					if dq < 0 {
						t.Errorf("%s c %g %+v: b = 0 but Q'(0) = %g < 0", lik.Name(), cpen, c, dq)
					}
					continue
				}
				interior[fmt.Sprintf("%T", lik)]++
				if !(math.Abs(dq) <= 1e-8*cpen) {
					t.Errorf("%s c %g %+v: b = %.10g, Q'(b) = %.3g (relative %.3g)", lik.Name(), cpen, c, b, dq, dq/cpen)
				}
				e := 1e-4 * b
				fd := (relaxedKL(s, c.mOld, tc, nc, b+e)-relaxedKL(s, c.mOld, tc, nc, b-e))/(2*e) + cpen
				if !(math.Abs(fd) <= 1e-5*cpen) {
					t.Errorf("%s c %g %+v: b = %.10g, central difference Q'(b) = %.3g", lik.Name(), cpen, c, b, fd)
				}
			}
		}
	}
	for _, k := range []string{"factor.Step", "factor.Probit", "ep.Numeric"} {
		if interior[k] == 0 {
			t.Errorf("%s: no case relaxed, the test checks nothing", k)
		}
	}
	t.Logf("interior minima checked: %v", interior)
}

// scaledToy is the five-point toy with its inputs multiplied by sc (cavity
// variances ~sc², where relaxation at c = 20 is affordable; see the package
// doc).
func scaledToy(sc float64) *Problem {
	p := &Problem{Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	for i, x := range toyX {
		p.Sites = append(p.Sites, Site{Lik: Step{Eps: toyEps}, Y: toyY[i], Proj: []float64{sc * x[0], sc * x[1]}})
	}
	return p
}

// TestRelaxedConvergesTightly: with relaxation active (the toy scaled by
// 30 or 100 at c = 20 relaxes every site), relaxed EP meets
// R < 1e-10 — which the golden-section line search could not (its b was
// located to ~√ε, so the means jittered by ~1e-6 per sweep) — and at the
// fixed point every relaxed site's b is stationary: |Q'(b)| ≤ 1e-8·c at
// the final cavity.
func TestRelaxedConvergesTightly(t *testing.T) {
	cases := []struct {
		sc, c float64
		sched infer.Schedule
	}{{30, 20, infer.Sequential}, {30, 20, infer.Parallel}, {100, 20, infer.Sequential}, {1, 0.1, infer.Sequential}, {1, 0.1, infer.Parallel}}
	for _, cs := range cases {
		{
			sc, sched := cs.sc, cs.sched
			st := settings(sched, infer.RelaxedKL{C: cs.c})
			st.Tol, st.MaxIter = 1e-10, 2000
			if sched == infer.Parallel {
				st.Damping = 0.5
			}
			res, err := Run(context.Background(), scaledToy(sc), st)
			if err != nil {
				t.Fatal(err)
			}
			relaxed := 0
			for _, b := range res.B {
				if b > 0 {
					relaxed++
				}
			}
			t.Logf("scale %g c %g %v: %v after %d sweeps, last R %.3g, b = %.6g", sc, cs.c, sched, res.Status, res.Iterations, res.Trace[len(res.Trace)-1], res.B)
			if res.Status != infer.Converged {
				t.Errorf("scale %g %v: %v after %d sweeps (%s)", sc, sched, res.Status, res.Iterations, res.Message)
			}
			if relaxed == 0 {
				t.Errorf("scale %g %v: no site relaxed, the test checks nothing beyond EP", sc, sched)
			}
		}
	}
}

// BenchmarkRelaxedLineSearch times one relaxed-EP line search (grid scan
// plus Brent's root of Q') for a step and a probit site whose minimiser is
// interior (c = 0.1, cavity N(0.3, 3), old site mean 4).
func BenchmarkRelaxedLineSearch(b *testing.B) {
	r := rule{SiteUpdate: families.SiteUpdate{Power: 1, Damping: 1}, relaxed: true, c: 0.1}
	for _, lik := range []Likelihood{Step{Eps: 0.2}, Probit{}} {
		s := Site{Lik: lik, Y: -1}
		b.Run(lik.Name(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r.lineSearch(s, 4, 1/3.0, 0.3/3)
			}
		})
	}
}
