package exact

import (
	"math"
)

// rule is an embedded pair of cubature rules on the reference cube
// [−1, 1]^d: nodes, weights of the higher-degree rule (hi) and of the
// embedded lower-degree rule (lo), both including the volume 2^d. On a cell
// with centre c and half-widths h the integral is Π_i h_i · Σ_k w_k f(c + h ⊙ x_k),
// and |I_hi − I_lo| is the cell's error estimate.
type rule struct {
	d      int
	nodes  [][]float64
	hi, lo []float64
	// For the choice of the bisection axis (Genz & Malik 1980): indices of
	// the centre and of the nodes ±λ2 e_i and ±λ4 e_i per axis.
	center     int
	axis2      [][2]int
	axis4      [][2]int
	fourthDiff float64 // λ2²/λ4²
}

// gaussKronrod15 is the 15-point Kronrod extension of the 7-point
// Gauss–Legendre rule on [−1, 1] (QUADPACK qk15; Piessens et al. 1983):
// K15 integrates polynomials of degree 22 exactly, G7 of degree 13.
func gaussKronrod15() *rule {
	xgk := []float64{
		0.991455371120812639206854697526329,
		0.949107912342758524526189684047851,
		0.864864423359769072789712788640926,
		0.741531185599394439863864773280788,
		0.586087235467691130294144845693013,
		0.405845151377397166906606412076961,
		0.207784955007898467600689403773245,
	}
	wgk := []float64{
		0.022935322010529224963732008058970,
		0.063092092629978553290700663189204,
		0.104790010322250183839876322541518,
		0.140653259715525918745189590510238,
		0.169004726639267902826583426598550,
		0.190350578064785409913256402421014,
		0.204432940075298892414161999234649,
	}
	const wgk0 = 0.209482141084727828012999174891714
	// G7 weights for the nodes xgk[1], xgk[3], xgk[5] and 0.
	wg := map[int]float64{
		1: 0.129484966168869693270611432679082,
		3: 0.279705391489276667901467771423780,
		5: 0.381830050505118944950369775488975,
	}
	const wg0 = 0.417959183673469387755102040816327
	r := &rule{d: 1, center: 0}
	r.add([]float64{0}, wgk0, wg0)
	for k, x := range xgk {
		r.add([]float64{-x}, wgk[k], wg[k])
		r.add([]float64{x}, wgk[k], wg[k])
	}
	return r
}

// genzMalik is the degree-7 rule of Genz & Malik (1980, "An adaptive
// algorithm for numerical integration over an n-dimensional rectangular
// region", J. Comput. Appl. Math. 6) with its embedded degree-5 rule, for
// d ≥ 2: 2^d + 2d² + 2d + 1 nodes,
//
//	λ2 = √(9/70), λ4 = √(9/10), λ5 = √(9/19),
//	w1 = (12824 − 9120 d + 400 d²)/19683, w2 = 980/6561, w3 = (1820 − 400 d)/19683,
//	w4 = 200/19683, w5 = 6859/19683/2^d  (degree 7),
//	w1' = (729 − 950 d + 50 d²)/729, w2' = 245/486, w3' = (265 − 100 d)/1458,
//	w4' = 25/729  (degree 5),
//
// for the centre, ±λ2 e_i, ±λ4 e_i, ±λ4 e_i ± λ4 e_j (i < j) and (±λ5, …, ±λ5),
// all relative to the cube's volume.
func genzMalik(d int) *rule {
	l2, l4, l5 := math.Sqrt(9.0/70), math.Sqrt(9.0/10), math.Sqrt(9.0/19)
	fd := float64(d)
	vol := math.Ldexp(1, d)
	w1, w2 := (12824-9120*fd+400*fd*fd)/19683, 980.0/6561
	w3, w4, w5 := (1820-400*fd)/19683, 200.0/19683, 6859.0/19683/vol
	e1, e2 := (729-950*fd+50*fd*fd)/729, 245.0/486
	e3, e4 := (265-100*fd)/1458, 25.0/729
	r := &rule{d: d, center: 0, fourthDiff: l2 * l2 / (l4 * l4)}
	r.add(make([]float64, d), vol*w1, vol*e1)
	r.axis2 = make([][2]int, d)
	r.axis4 = make([][2]int, d)
	for i := 0; i < d; i++ {
		r.axis2[i] = [2]int{r.add(unit(d, i, -l2), vol*w2, vol*e2), r.add(unit(d, i, l2), vol*w2, vol*e2)}
		r.axis4[i] = [2]int{r.add(unit(d, i, -l4), vol*w3, vol*e3), r.add(unit(d, i, l4), vol*w3, vol*e3)}
	}
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			for _, si := range []float64{-l4, l4} {
				for _, sj := range []float64{-l4, l4} {
					x := make([]float64, d)
					x[i], x[j] = si, sj
					r.add(x, vol*w4, vol*e4)
				}
			}
		}
	}
	for m := 0; m < 1<<d; m++ {
		x := make([]float64, d)
		for i := range x {
			x[i] = l5
			if m&(1<<i) != 0 {
				x[i] = -l5
			}
		}
		r.add(x, vol*w5, 0)
	}
	return r
}

// ruleFor returns the rule used in dimension d, with the cube's 2^d
// vertices appended as zero-weight nodes for jump detection.
func ruleFor(d int) *rule {
	r := genzMalik
	if d == 1 {
		r = func(int) *rule { return gaussKronrod15() }
	}
	ru := r(d)
	for m := 0; m < 1<<d; m++ {
		x := make([]float64, d)
		for i := range x {
			x[i] = 1
			if m&(1<<i) != 0 {
				x[i] = -1
			}
		}
		ru.add(x, 0, 0)
	}
	return ru
}

// jumpTol is the largest deviation of log f from its least-squares linear
// fit over a cell's nodes that is taken as smooth variation.
const jumpTol = 0.25

// missed reports whether the vertices see something the rule's own nodes
// do not, so that |I_hi − I_lo| cannot see it either and the cell needs
// another error bound: a jump (a discontinuity clipping a corner outside the
// nodes), or a vertex value of log f above the largest at the nodes by more
// than peakTol (a peak towards a corner that the nodes do not resolve, e.g.
// a likelihood far narrower than the cell). lf holds the values at all
// nodes, the vertices last.
func (r *rule) missed(lf []float64) bool {
	nv := 1 << r.d
	in, vert := lf[:len(lf)-nv], lf[len(lf)-nv:]
	inner := &rule{d: r.d, nodes: r.nodes[:len(r.nodes)-nv]}
	if r.jump(lf) && !inner.jump(in) {
		return true
	}
	mi, mv := math.Inf(-1), math.Inf(-1)
	for _, v := range in {
		mi = math.Max(mi, v)
	}
	for _, v := range vert {
		mv = math.Max(mv, v)
	}
	return mv > mi+peakTol
}

// peakTol is the margin by which a vertex value of log f must exceed every
// node's for the cell to count as unresolved (rule.missed). It is large so
// that smooth cells, whose corners exceed the nodes by |∇log f|·O(h), are
// left to the embedded error estimate: only cells whose nodes are blind to
// their mass (a peak far narrower than the cell near a corner) qualify.
const peakTol = 20

// jump reports whether the log-integrand values lf at the nodes look
// discontinuous: some but not all are −Inf, or
// max_k |lf_k − a − bᵀx_k| > jumpTol for the least-squares plane a + bᵀx
// (the node set is symmetric, so a = mean lf and b_i = Σ x_ki lf_k / Σ x_ki²).
// A jump of log f by Δ leaves residuals of about Δ/2, so jumps of a step
// likelihood with (1 − ε)/ε ≳ e^0.5 are caught wherever a node or vertex
// lies on each side — which for a planar discontinuity is every cell it cuts.
func (r *rule) jump(lf []float64) bool {
	inf, n := 0, float64(len(lf))
	a := 0.0
	for _, v := range lf {
		if math.IsInf(v, -1) {
			inf++
			continue
		}
		a += v
	}
	if inf > 0 {
		return inf < len(lf)
	}
	a /= n
	b := make([]float64, r.d)
	for i := range b {
		num, den := 0.0, 0.0
		for k, x := range r.nodes[:len(lf)] {
			num += x[i] * lf[k]
			den += x[i] * x[i]
		}
		b[i] = num / den
	}
	for k, x := range r.nodes[:len(lf)] {
		res := lf[k] - a
		for i := range b {
			res -= b[i] * x[i]
		}
		if math.Abs(res) > jumpTol {
			return true
		}
	}
	return false
}

func (r *rule) add(x []float64, hi, lo float64) int {
	r.nodes = append(r.nodes, x)
	r.hi = append(r.hi, hi)
	r.lo = append(r.lo, lo)
	return len(r.nodes) - 1
}

func unit(d, i int, v float64) []float64 {
	x := make([]float64, d)
	x[i] = v
	return x
}

// splitAxis returns the axis with the largest fourth difference of the
// values f at the nodes, |f(λ2 e_i) + f(−λ2 e_i) − 2f0 − (λ2/λ4)² (f(λ4 e_i) + f(−λ4 e_i) − 2f0)|
// (Genz & Malik 1980); ties go to the widest axis given by h.
func (r *rule) splitAxis(f []float64, h []float64) int {
	if r.d == 1 {
		return 0
	}
	best, bestV := 0, -1.0
	f0 := f[r.center]
	for i := 0; i < r.d; i++ {
		a, b := r.axis2[i], r.axis4[i]
		v := math.Abs(f[a[0]] + f[a[1]] - 2*f0 - r.fourthDiff*(f[b[0]]+f[b[1]]-2*f0))
		if v > bestV*(1+1e-12) || (v >= bestV*(1-1e-12) && h[i] > h[best]) {
			best, bestV = i, v
		}
	}
	return best
}
