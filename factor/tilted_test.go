package factor

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/fg-infer/fg/internal/testkit"
)

// simpsonTilted is an independent computation of the tilted moments:
// composite Simpson's rule with n intervals on [lo, hi], in the log domain.
// It returns log Z, the tilted mean and variance, and E[log p].
func simpsonTilted(logp func(float64) float64, m, v, u, lo, hi float64, n int) (logZ, mean, vr, elog float64) {
	h := (hi - lo) / float64(n)
	lw := make([]float64, n+1)
	lp := make([]float64, n+1)
	mx := math.Inf(-1)
	for i := range lw {
		f := lo + float64(i)*h
		lp[i] = logp(f)
		lw[i] = u*lp[i] - (f-m)*(f-m)/(2*v)
		mx = math.Max(mx, lw[i])
	}
	var z, e1, e2, el float64
	for i := range lw {
		c := testkit.SimpsonCoef(i, n)
		w := c * math.Exp(lw[i]-mx)
		f := lo + float64(i)*h
		z += w
		e1 += w * f
		e2 += w * f * f
		if w > 0 {
			el += w * lp[i]
		}
	}
	mean = e1 / z
	vr = e2/z - mean*mean
	logZ = mx + math.Log(z*h/3) - 0.5*math.Log(2*math.Pi*v)
	return logZ, mean, vr, el / z
}

type tiltedCase struct {
	lik     Tilted
	y, m, v float64
	u       float64
}

// checkTilted compares a Tilted rule with Simpson's rule on [lo, hi].
func checkTilted(t *testing.T, c tiltedCase, lo, hi float64, tol float64) {
	t.Helper()
	ld := c.lik.(LogDensity)
	logp := func(f float64) float64 { x, _, _ := ld.LogLik(c.y, f); return x }
	wz, wm, wv, we := simpsonTilted(logp, c.m, c.v, c.u, lo, hi, 100000)
	lz, d1, d2 := c.lik.Tilted(c.y, c.m, c.v, c.u)
	gm, gv := c.m+c.v*d1, c.v+c.v*c.v*d2
	name := fmt.Sprintf("%T%+v y=%g m=%g v=%g u=%g", c.lik, c.lik, c.y, c.m, c.v, c.u)
	if !scalar.EqualWithinAbsOrRel(lz, wz, tol, tol) {
		t.Errorf("%s: log Z %.12g, quadrature %.12g", name, lz, wz)
	}
	if !scalar.EqualWithinAbsOrRel(gm, wm, tol*math.Sqrt(c.v), tol) {
		t.Errorf("%s: mean %.12g, quadrature %.12g", name, gm, wm)
	}
	if !scalar.EqualWithinAbsOrRel(gv, wv, tol*c.v, tol) {
		t.Errorf("%s: var %.12g, quadrature %.12g", name, gv, wv)
	}
	if c.u == 1 {
		if e := c.lik.ExpLogLik(c.y, c.m, c.v); !scalar.EqualWithinAbsOrRel(e, we, tol, tol) {
			t.Errorf("%s: E log p %.12g, quadrature %.12g", name, e, we)
		}
	}
}

// TestTiltedQuadrature checks the tilted moments of the quadrature
// likelihoods (poisson_log, the Student-t likelihood) against Simpson's
// rule with 100000 intervals over the cavity ± 40 sd, to 1e-8 (-short:
// two of the three cavity means).
func TestTiltedQuadrature(t *testing.T) {
	ms := []float64{-2, 0, 1.5}
	if testing.Short() {
		ms = ms[1:]
	}
	var cases []tiltedCase
	for _, m := range ms {
		for _, v := range []float64{0.1, 1, 4} {
			for _, u := range []float64{1, 0.5} {
				for _, y := range []float64{0, 1, 3, 20} {
					cases = append(cases, tiltedCase{PoissonLog{}, y, m, v, u})
				}
				for _, l := range []StudentT{{1, 0.1}, {3, 1}, {30, 0.5}, {4, 0.01}} {
					for _, y := range []float64{-3, 0, 5} {
						cases = append(cases, tiltedCase{l, y, m, v, u})
					}
				}
			}
		}
	}
	for _, c := range cases {
		sd := math.Sqrt(c.v)
		checkTilted(t, c, c.m-40*sd, c.m+40*sd, 1e-8)
	}
}

// TestTiltedFarCavity: a narrow cavity far from a count's likelihood puts
// the tilted mode tens of cavity widths away (found by the Newton window).
func TestTiltedFarCavity(t *testing.T) {
	checkTilted(t, tiltedCase{PoissonLog{}, 0, 10, 0.01, 1}, 0, 12, 1e-8)
	checkTilted(t, tiltedCase{PoissonLog{}, 500, -3, 0.05, 1}, -5, 8, 1e-8)
	checkTilted(t, tiltedCase{StudentT{Nu: 2, Scale: 0.01}, 8, 0, 1, 1}, -40, 40, 1e-8)
}

// TestTiltedClosedForms checks the closed-form rules (probit, step,
// normal) against the same quadrature.
func TestTiltedClosedForms(t *testing.T) {
	for _, m := range []float64{-1.5, 0.3} {
		for _, v := range []float64{0.2, 3} {
			sd := math.Sqrt(v)
			for _, y := range []float64{-1, 1} {
				checkTilted(t, tiltedCase{Probit{}, y, m, v, 1}, m-40*sd, m+40*sd, 1e-8)
				checkTilted(t, tiltedCase{Normal{Var: 0.5}, 2 * y, m, v, 0.7}, m-40*sd, m+40*sd, 1e-8)
			}
		}
	}
}

// TestLogDensityDerivatives checks each LogDensity rule's g and h against
// central differences of its value.
func TestLogDensityDerivatives(t *testing.T) {
	liks := []struct {
		l LogDensity
		y float64
	}{{Probit{}, -1}, {Logistic{}, 1}, {Normal{Var: 0.3}, 0.7}, {StudentT{Nu: 3, Scale: 0.5}, 1.2}, {PoissonLog{}, 4}, {PoissonLog{}, 0}}
	for _, c := range liks {
		for _, f := range []float64{-1.3, 0.2, 2.1} {
			const h = 1e-5
			v0, g, hh := c.l.LogLik(c.y, f)
			vp, gp, _ := c.l.LogLik(c.y, f+h)
			vm, gm, _ := c.l.LogLik(c.y, f-h)
			if fd := (vp - vm) / (2 * h); !scalar.EqualWithinAbsOrRel(g, fd, 1e-6, 1e-6) {
				t.Errorf("%T y=%g f=%g: g %g, difference %g", c.l, c.y, f, g, fd)
			}
			if fd := (gp - gm) / (2 * h); !scalar.EqualWithinAbsOrRel(hh, fd, 1e-6, 1e-6) {
				t.Errorf("%T y=%g f=%g: h %g, difference %g", c.l, c.y, f, hh, fd)
			}
			_ = v0
		}
	}
}

// TestStudentTDensity: the Student-t likelihood integrates to one in y.
func TestStudentTDensity(t *testing.T) {
	l := StudentT{Nu: 3, Scale: 2}
	logp := func(y float64) float64 { x, _, _ := l.LogLik(y, 0.5); return x }
	lz, _, _, _ := simpsonTilted(logp, 0, 1e300, 1, -3000, 3000, 2000000)
	// with an (effectively) flat cavity, log Z + ½ log 2πv is log ∫ p dy
	if got := lz + 0.5*math.Log(2*math.Pi*1e300); !(math.Abs(got) <= 1e-4) {
		t.Errorf("log ∫ St = %g, want 0 (heavy tails beyond ±3000 carry ~1e-7)", got)
	}
}
