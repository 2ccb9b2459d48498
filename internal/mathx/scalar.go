package mathx

import "math"

// BrentRoot finds a zero of f in [a, c] given fa = f(a) and fc = f(c) of
// opposite signs, by Brent's method (inverse quadratic interpolation with a
// bisection safeguard; Brent 1973, ch. 4): the bracket always holds a sign
// change and shrinks to 4·eps·|x| + tol.
func BrentRoot(f func(float64) float64, a, c, fa, fc, tol float64) float64 {
	b, fb := c, fc
	c, fc = a, fa
	d := b - a
	e := d
	for it := 0; it < 200; it++ {
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol1 := 4*2.220446049250313e-16*math.Abs(b) + 0.5*tol
		xm := 0.5 * (c - b)
		if math.Abs(xm) <= tol1 || fb == 0 {
			return b
		}
		if math.Abs(e) >= tol1 && math.Abs(fa) > math.Abs(fb) {
			d, e = brentStep(a, b, c, fa, fb, fc, xm, tol1, d, e)
		} else {
			d, e = xm, xm
		}
		a, fa = b, fb
		if math.Abs(d) > tol1 {
			b += d
		} else {
			b += math.Copysign(tol1, xm)
		}
		fb = f(b)
	}
	return b
}

// brentStep is the interpolation step of BrentRoot (secant or inverse
// quadratic), or bisection when the step would leave the bracket or shrink
// too slowly; it returns the new step and the previous one.
func brentStep(a, b, c, fa, fb, fc, xm, tol1, d, e float64) (float64, float64) {
	var p, q float64
	s := fb / fa
	if a == c {
		p, q = 2*xm*s, 1-s
	} else {
		qq, r := fa/fc, fb/fc
		p = s * (2*xm*qq*(qq-r) - (b-a)*(r-1))
		q = (qq - 1) * (r - 1) * (s - 1)
	}
	if p > 0 {
		q = -q
	}
	p = math.Abs(p)
	if 2*p < math.Min(3*xm*q-math.Abs(tol1*q), math.Abs(e*q)) {
		return p / q, d
	}
	return xm, xm
}

// GoldenMin minimises a unimodal f on [a, c] by golden-section search, at
// most iters steps, and returns the better of the last two points.
func GoldenMin(f func(float64) float64, a, c float64, iters int) float64 {
	const g = 0.3819660112501051
	x1, x2 := a+g*(c-a), c-g*(c-a)
	f1, f2 := f(x1), f(x2)
	for k := 0; k < iters && c-a > 1e-12*(1+math.Abs(a)); k++ {
		if f1 < f2 {
			c, x2, f2 = x2, x1, f1
			x1 = a + g*(c-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = c - g*(c-a)
			f2 = f(x2)
		}
	}
	if f1 < f2 {
		return x1
	}
	return x2
}

// PenalisedMin minimises Q(b) = K(b) + c b over b ≥ 0 for a K ≥ 0 that need
// not be unimodal (relaxed EP's line search over the relaxation weight,
// qi-guo-relaxed-ep-rbp.md §4.1: b = 0 is often a local minimum next to a
// narrow valley), given q = Q, its derivative dq = Q' and q0 = Q(0).
//
// It evaluates Q on a log-spaced grid of 24 points per decade over [lo, hi],
// hi lowered to q0/c when c > 0 (K ≥ 0 gives Q(b) ≥ c b, so no larger b
// beats b = 0). Then it locates the minimiser in the bracket of the best
// grid point's neighbours as the root of Q' by BrentRoot, which places b to
// rounding where minimising Q's value reaches only ~√ε (Q is flat to second
// order at its minimum); GoldenMin on the bracket is the fallback when Q'
// does not change sign there. It returns 0 when no b > 0 beats b = 0, and
// the grid's last point when Q still falls there.
func PenalisedMin(q, dq func(float64) float64, q0, c, lo, hi float64) float64 {
	if c > 0 {
		hi = math.Min(hi, q0/c)
	}
	if !(hi > lo) {
		return 0
	}
	const perDecade = 24
	n := 1 + int(math.Ceil(perDecade*math.Log10(hi/lo)))
	step := math.Log(hi/lo) / float64(n-1)
	at := func(k int) float64 { return lo * math.Exp(step*float64(k)) }
	best, bestQ := -1, q0
	for k := 0; k < n; k++ {
		if v := q(at(k)); v < bestQ {
			best, bestQ = k, v
		}
	}
	if best < 0 {
		return 0
	}
	if best+1 == n {
		return at(best) // the grid's end (c = 0): Q still falls there
	}
	a, e := 0.0, at(best+1)
	if best > 0 {
		a = at(best - 1)
	}
	var b float64
	if da, de := dq(a), dq(e); da < 0 && de > 0 {
		b = BrentRoot(dq, a, e, da, de, 0)
	} else {
		b = GoldenMin(q, a, e, 80)
	}
	if qb := q(b); qb < bestQ || (qb == bestQ && b > 0) {
		return b
	}
	return at(best)
}
