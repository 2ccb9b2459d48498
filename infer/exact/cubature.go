package exact

import (
	"container/heap"
	"context"
	"errors"
	"math"
)

// maxK is the number of moment integrands for d = MaxQuadDim:
// 1 + d + d(d+1)/2.
const maxK = 1 + MaxQuadDim + MaxQuadDim*(MaxQuadDim+1)/2

// cell is a box with centre c and half-widths h, the rule's estimates of the
// moment integrals over it (scaled by exp(−shift)), their error estimates, the
// heap key and the bisection axis.
type cell struct {
	c, h     [MaxQuadDim]float64
	val, err [maxK]float64
	score    float64
	axis     int
	jump     bool // the vertices see what the nodes miss (rule.missed)
}

// jumpErr is the error bound of a cell on which the vertices see what the
// rule's nodes miss (rule.missed): half the range of the values times the cell's volume
// 2^d Π h_i, i.e. 2^(d−1) vol (max − min) with vol = Π h_i. Without it
// such cells (a discontinuity clipping a corner outside the rule's nodes is
// invisible to both rules) would never be refined, leaving a systematic
// error that no refinement removes.
func jumpErr(d int, vol, lo, hi float64) float64 {
	return math.Ldexp(vol*(hi-lo), d-1)
}

type cellHeap []*cell

func (h cellHeap) Len() int           { return len(h) }
func (h cellHeap) Less(i, j int) bool { return h[i].score > h[j].score }
func (h cellHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cellHeap) Push(x any)        { *h = append(*h, x.(*cell)) }
func (h *cellHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// integrator integrates f(u)·[1, u, u uᵀ] with f(u) = exp(ℓ(w) + log N(w; m0, Σ0) + log|det L|),
// w = c + L u, over a box by globally adaptive subdivision. Values are
// stored scaled by exp(−shift); shift is raised to the largest log f seen,
// so nothing overflows.
type integrator struct {
	fr, prior *frame
	loglik    func([]float64) float64
	r         *rule
	d, k      int
	shift     float64
	cells     cellHeap
	total     [maxK]float64
	totalErr  [maxK]float64
	evals     int
	logf, f   []float64
	u, w, tmp []float64
	seed      *seed // refine around the mode first (stage 1); may be nil
	// covered are points (w coordinates) the box must contain: the
	// corners of the earlier stage's cells that carry mass (massCorners).
	covered [][]float64
	// progress, when non-nil, gets the evaluations and the error estimate
	// every 256 refinements.
	progress func(evals int, errEst float64)
}

func newIntegrator(fr, prior *frame, loglik func([]float64) float64) *integrator {
	d := fr.d
	r := ruleFor(d)
	n := len(r.nodes)
	return &integrator{
		fr: fr, prior: prior, loglik: loglik, r: r, d: d,
		k: 1 + d + d*(d+1)/2, shift: math.Inf(-1),
		logf: make([]float64, n), f: make([]float64, n),
		u: make([]float64, d), w: make([]float64, d), tmp: make([]float64, d),
	}
}

// logIntegrand is log f(u) for the current u (in it.u).
func (it *integrator) logIntegrand() (float64, error) {
	it.fr.toW(it.u, it.w)
	it.evals++
	ll := it.loglik(it.w)
	if err := checkLogLik(ll, it.w); err != nil {
		return 0, err
	}
	return ll + it.prior.logDensity(it.w, it.tmp) + it.fr.logDet, nil
}

// evalCell applies the rule to c, filling val, err, score and axis.
func (it *integrator) evalCell(c *cell) error {
	m := math.Inf(-1)
	for k, x := range it.r.nodes {
		for i := 0; i < it.d; i++ {
			it.u[i] = c.c[i] + c.h[i]*x[i]
		}
		lf, err := it.logIntegrand()
		if err != nil {
			return err
		}
		it.logf[k] = lf
		m = math.Max(m, lf)
	}
	if m > it.shift {
		it.rescale(m)
	}
	vol := 1.0
	for i := 0; i < it.d; i++ {
		vol *= c.h[i]
	}
	c.jump = it.r.missed(it.logf)
	var hi, lo [maxK]float64
	var g, gmin, gmax [maxK]float64
	for j := range gmin {
		gmin[j], gmax[j] = math.Inf(1), math.Inf(-1)
	}
	for k, x := range it.r.nodes {
		fk := 0.0
		if !math.IsInf(it.logf[k], -1) {
			fk = math.Exp(it.logf[k] - it.shift)
		}
		it.f[k] = fk
		for i := 0; i < it.d; i++ {
			it.u[i] = c.c[i] + c.h[i]*x[i]
		}
		it.momentVector(fk, &g)
		for j := 0; j < it.k; j++ {
			hi[j] += it.r.hi[k] * g[j]
			lo[j] += it.r.lo[k] * g[j]
			gmin[j], gmax[j] = math.Min(gmin[j], g[j]), math.Max(gmax[j], g[j])
		}
	}
	c.score = 0
	for j := 0; j < it.k; j++ {
		c.val[j] = vol * hi[j]
		c.err[j] = vol * math.Abs(hi[j]-lo[j])
		if c.jump {
			c.err[j] = math.Max(c.err[j], jumpErr(it.d, vol, gmin[j], gmax[j]))
		}
		c.score = math.Max(c.score, c.err[j])
	}
	c.axis = it.r.splitAxis(it.f, c.h[:it.d])
	return nil
}

// momentVector sets g = f·[1, u_1..u_d, u_i u_j (i ≤ j)] for it.u.
func (it *integrator) momentVector(f float64, g *[maxK]float64) {
	g[0] = f
	for i := 0; i < it.d; i++ {
		g[1+i] = f * it.u[i]
	}
	p := 1 + it.d
	for i := 0; i < it.d; i++ {
		for j := i; j < it.d; j++ {
			g[p] = f * it.u[i] * it.u[j]
			p++
		}
	}
}

// rescale raises shift to s, scaling every stored value by exp(old − s).
func (it *integrator) rescale(s float64) {
	if math.IsInf(it.shift, -1) {
		it.shift = s
		return
	}
	a := math.Exp(it.shift - s)
	for _, c := range it.cells {
		for j := 0; j < it.k; j++ {
			c.val[j] *= a
			c.err[j] *= a
		}
		c.score *= a
	}
	for j := 0; j < it.k; j++ {
		it.total[j] *= a
		it.totalErr[j] *= a
	}
	it.shift = s
}

// init partitions the box [lo, hi] into n^d equal cells.
func (it *integrator) init(lo, hi []float64, n int) error {
	cnt := 1
	for i := 0; i < it.d; i++ {
		cnt *= n
	}
	for m := 0; m < cnt; m++ {
		c := &cell{}
		q := m
		for i := 0; i < it.d; i++ {
			h := (hi[i] - lo[i]) / float64(2*n)
			c.c[i] = lo[i] + h*(2*float64(q%n)+1)
			c.h[i] = h
			q /= n
		}
		if err := it.seedCell(c, 0); err != nil {
			return err
		}
	}
	return nil
}

// box returns [−R, R]^d, widened in stage 1 to contain the seed's mode with
// R prior standard deviations around it (a posterior far from the prior),
// and in later stages to contain the cells of stage 1 that carry mass.
func (it *integrator) box(R float64) (lo, hi []float64) {
	lo, hi = make([]float64, it.d), make([]float64, it.d)
	for i := range lo {
		lo[i], hi[i] = -R, R
		if it.seed != nil {
			lo[i] = math.Min(lo[i], it.seed.u[i]-R)
			hi[i] = math.Max(hi[i], it.seed.u[i]+R)
		}
	}
	it.cover(lo, hi)
	return lo, hi
}

func (it *integrator) push(c *cell) {
	heap.Push(&it.cells, c)
	for j := 0; j < it.k; j++ {
		it.total[j] += c.val[j]
		it.totalErr[j] += c.err[j]
	}
}

// refine bisects the cell with the largest error estimate.
func (it *integrator) refine() error {
	c := heap.Pop(&it.cells).(*cell)
	for j := 0; j < it.k; j++ {
		it.total[j] -= c.val[j]
		it.totalErr[j] -= c.err[j]
	}
	a, b := *c, *c
	ax := c.axis
	a.h[ax], b.h[ax] = c.h[ax]/2, c.h[ax]/2
	a.c[ax], b.c[ax] = c.c[ax]-c.h[ax]/2, c.c[ax]+c.h[ax]/2
	for _, ch := range []*cell{&a, &b} {
		if err := it.evalCell(ch); err != nil {
			return err
		}
		it.push(ch)
	}
	return nil
}

// resum recomputes the totals from the cells (removing drift from the
// incremental updates).
func (it *integrator) resum() {
	it.total, it.totalErr = [maxK]float64{}, [maxK]float64{}
	for _, c := range it.cells {
		for j := 0; j < it.k; j++ {
			it.total[j] += c.val[j]
			it.totalErr[j] += math.Abs(c.err[j])
		}
	}
}

// errZeroMass is returned when the integrand vanishes on the whole box.
var errZeroMass = errors.New("exact: the likelihood is zero on the whole integration box")

// integrate refines until the propagated error estimate is at most tol or
// maxEval evaluations are spent; it reports whether tol was reached.
func (it *integrator) integrate(ctx context.Context, R, tol float64, maxEval int) (bool, error) {
	lo, hi := it.box(R)
	if err := it.init(lo, hi, 8); err != nil {
		return false, err
	}
	per := 2 * len(it.r.nodes)
	nextResum := 0
	for iter := 0; ; iter++ {
		if iter%256 == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if iter >= nextResum { // amortised O(1) per refinement
			it.resum()
			nextResum = iter + len(it.cells)
		}
		if it.total[0] <= 0 && it.totalErr[0] == 0 {
			return false, errZeroMass
		}
		// A non-positive total can occur while peaks sit on the negative
		// centre weight of the Genz–Malik rule; refinement removes it.
		m := it.moments()
		if it.progress != nil && iter%256 == 0 {
			it.progress(it.evals, m.errMax)
		}
		if it.total[0] > 0 && m.errMax <= tol {
			it.resum()
			if m := it.moments(); m.errMax <= tol {
				return true, nil
			}
		}
		if it.evals+per > maxEval {
			it.resum()
			return false, nil
		}
		if err := it.refine(); err != nil {
			return false, err
		}
	}
}
