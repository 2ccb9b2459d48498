package mathx

import "math"

// BrentRoot finds a zero of f in [a, c] given fa = f(a) and fc = f(c) of
// opposite signs, by Brent's method (inverse quadratic interpolation with a
// bisection safeguard; Brent 1973, ch. 4): the bracket always holds a sign
// change and shrinks to 4·eps·|x| + tol. (infer/ep's relaxed line search
// keeps its own copy of this routine.)
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
