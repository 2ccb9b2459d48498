package fgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/netjoint"
)

// siteBandwidth is bandwidth with the likelihood sites counted: the
// half-bandwidth of Λ + Σ_s τ̃_s a_s a_sᵀ, the precision of joint EP's
// approximation, in the variables' order (a site on x_F couples the
// variables of F as a linear-Gaussian factor does). It is −1 when g has
// blocks or gates.
func siteBandwidth(g *Graph) int {
	if len(g.blocks) > 0 || len(g.gates) > 0 {
		return -1
	}
	k := 0
	for _, vs := range g.varLists() {
		k = max(k, spread(g, vs))
	}
	return k
}

// spread is max F − min F over variables F.
func spread(g *Graph, vs []int32) int {
	a, b := int32(g.n), int32(-1)
	for _, v := range vs {
		a, b = min(a, v), max(b, v)
	}
	return int(b - a)
}

// bandEP is joint-Gaussian EP (family = full) on a graph with likelihood
// sites whose precision, sites included, is banded with half-bandwidth k
// (siteBandwidth: a chain of vector states seen through probit, poisson,
// student_t … of projections aᵀx_t + c of one step's elements). The
// approximation is q(x) ∝ p₀(x) Π_s t̃_s(a_sᵀx + c_s), t̃_s(f) =
// exp(−½ τ̃_s f² + ν̃_s f), with the precision Λ + Σ_s τ̃_s a_s a_sᵀ of the
// same band as the prior's, so no n×n matrix is formed.
//
// A site needs the marginal of its projection under q. Its variables lie
// in the window W = [lo, lo + k] of its first variable lo, and the
// marginal precision of x_W is the Schur complement of q's precision onto
// W: the block Λ_WW plus the corrections of eliminating the variables
// before lo (forward) and after lo + k (backward), which touch disjoint
// sets of W's entries and add (the elimination of the variables after
// lo + k reads only rows beyond lo + k and their coupling to W). A sweep
// (pass) eliminates the variables from the last, recording the backward
// correction of every site's window (O(k²) numbers per distinct lo), and
// then eliminates them from the first in order, updating on the way every
// site whose window it reaches: the (k+1)×(k+1) marginal of x_W from the
// current forward Schur complement and the recorded backward correction,
// the projection's marginal N(f; m, v), v = aᵀP_W⁻¹a, the EP update
// (families.SiteUpdate, the rule of every EP site in fg: cavity
// = marginal / t̃^u, tilted moments of p(y|f)^u × cavity, message =
// (projection / cavity)^{1/u}), and the new t̃ added to the rows not yet
// eliminated. A site in the window of a later one is therefore already
// updated when the later one reads its marginal, and the variables after
// lo + k carry only sites not yet updated in this sweep, so each site's
// cavity is its exact cavity under joint EP given every other site's
// current message: sequential EP in time order, as the forward–backward
// schedule of a scalar chain (Heskes & Zoeter 2002), at O(n k²) per sweep
// (each elimination step updates a k×k block) and O(n k) memory plus the
// recorded corrections.
//
// Why sequential: on a long chain the sites of neighbouring steps share
// their variables' posterior, and updating all of them from the same
// marginals (parallel EP) overshoots together. On a 2000-step target whose
// tripwire labels saturate, parallel EP on the band oscillates with period
// 2 undamped and still moves 0.3 standard deviations a sweep after 200
// sweeps damped by 0.5, where the sequential schedule converges in 52
// (TestBandEPSchedules; the scalar chain's 5000-step probit walk behaves
// the same, doc.go). Sequential EP in time order makes each site see its
// neighbours' new messages, as the scalar chain's schedule does; it costs
// the same per sweep. schedule = parallel still runs parallel EP on the
// band: one marginal pass, then every site from it (with the line's
// damping).
//
// Convergence is judged on the largest change, between sweeps, of a
// site's projection marginal (mean or standard deviation, in units of the
// standard deviation) as its update read it: the site messages are
// functions of these marginals, so R = 0 is EP's fixed point. The result
// solves q from the final messages in square-root information form
// (solveQ, netjoint.RootBand, as bandJoint; the information band when a
// site precision is negative), reads every variable's and projection's
// marginal from the band of its covariance (Takahashi's selected inverse)
// and log Z_EP from its log det (logZ); the residual discounts each
// site's rounding level in the sweeps' information form (read).
type bandEP struct {
	ctx      context.Context
	g        *Graph
	n, k, w  int
	u, damp  float64
	parallel bool
	fixed    bool // adapt_damping = false: an improper parallel sweep is not retried
	// fresh marks fm, fv as the marginals of the current sites (the
	// validating pass of the last parallel sweep read them).
	fresh bool
	// oldTau, oldNu are the sites before the last parallel update, restored
	// when it made q improper.
	oldTau, oldNu []float64

	sites  []int32   // site factors, ordered by their first variable
	lo     []int32   // first variable of each site in that order
	groups []int32   // first site of each run of sites with the same lo, then len(sites)
	tau    []float64 // site messages t̃ in projection space
	nu     []float64
	fm, fv []float64 // the projection marginal each site's last update read
	floor  []float64 // its rounding level in standard deviations (read)
	pm, ps []float64 // fm and √fv of the previous sweep (residual)

	band []float64 // row i holds Λ[i][i..i+k] of q's precision, then its forward Schur complement
	h    []float64
	diag []float64 // q's diagonal before elimination (pivot tolerance)
	ring []float64 // backward elimination's corrections of the last w rows (ring buffer)
	hr   []float64
	dr   []float64        // per group: the backward correction of rows lo+1 … lo+k (packed upper) and of h
	pw   blas64.Symmetric // the window's marginal precision P_W
	pu   blas64.Symmetric // the factor of P_W
	hw   []float64
	xw   []float64
	mw   []float64

	stats infer.Stats
	skip  int // updates skipped in the current sweep
}

// bandEPBytes is the memory a bandEP over g holds: the band, the ring and
// h (n(2w + 4) numbers), the per-site arrays and the recorded corrections.
func bandEPBytes(n, k, sites int) int64 {
	w := int64(k + 1)
	return 8 * (int64(n)*(w+4) + w*w + int64(sites)*(9+int64(k*(k+1)/2+k)))
}

// newBandEP prepares the band schedule of g with half-bandwidth k.
func newBandEP(ctx context.Context, g *Graph, k int, s Settings, u float64) (*bandEP, error) {
	nsites := len(g.liks)
	if need, budget := bandEPBytes(g.n, k, nsites), infer.MemoryBudget(); need > budget {
		return nil, fmt.Errorf("fgraph: ep on the band of %d variables and %d sites needs %s, over the memory budget of %s", g.n, nsites, infer.FormatBytes(need), infer.FormatBytes(budget))
	}
	b := &bandEP{ctx: ctx, g: g, n: g.n, k: k, w: k + 1, u: u, damp: s.Damping, parallel: s.Schedule == infer.Parallel, fixed: s.FixedDamping}
	for f := 0; f < g.NumFactors(); f++ {
		if !g.gaussian(f) {
			b.sites = append(b.sites, int32(f))
		}
	}
	first := func(f int32) int32 {
		fk := g.fac(int(f))
		return int32(fk.minVar())
	}
	slices.SortStableFunc(b.sites, func(x, y int32) int { return int(first(x) - first(y)) })
	b.lo = make([]int32, len(b.sites))
	for i, f := range b.sites {
		b.lo[i] = first(f)
		if i == 0 || b.lo[i] != b.lo[i-1] {
			b.groups = append(b.groups, int32(i))
		}
	}
	b.groups = append(b.groups, int32(len(b.sites)))
	m := len(b.sites)
	b.tau, b.nu, b.fm, b.fv = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	b.floor = make([]float64, m)
	b.pm, b.ps = make([]float64, m), make([]float64, m)
	for i := range b.pm {
		b.pm[i], b.ps[i] = math.NaN(), math.NaN()
	}
	w := b.w
	b.band, b.h, b.diag = make([]float64, b.n*w), make([]float64, b.n), make([]float64, b.n)
	b.ring, b.hr = make([]float64, w*w), make([]float64, w)
	b.dr = make([]float64, (len(b.groups)-1)*b.drSize())
	b.pw = blas64.Symmetric{Uplo: blas.Upper, N: w, Stride: w, Data: make([]float64, w*w)}
	b.pu = blas64.Symmetric{Uplo: blas.Upper, N: w, Stride: w, Data: make([]float64, w*w)}
	b.hw, b.xw, b.mw = make([]float64, w), make([]float64, w), make([]float64, w)
	return b, nil
}

// drSize is the number of values recorded per group: the packed upper
// triangle of a k×k block and k entries of h.
func (b *bandEP) drSize() int { return b.k*(b.k+1)/2 + b.k }

// tri is the index of (r, c), r ≤ c < k, in a packed upper k×k triangle.
func (b *bandEP) tri(r, c int) int { return r*b.k - r*(r-1)/2 + c - r }

// runBandEP runs joint EP on the band of g (bandEP) under infer.Iterate.
func runBandEP(ctx context.Context, g *Graph, k int, s Settings) (*Result, error) {
	u, err := power(s.Divergence)
	if err != nil {
		return nil, err
	}
	b, err := newBandEP(ctx, g, k, s, u)
	if err != nil {
		return nil, err
	}
	l := infer.Loop{Tol: s.Tol, Damping: s.Damping, MaxIter: s.MaxIter, FixedDamping: s.FixedDamping, Progress: s.Progress, Unit: "site"}
	o := infer.Iterate(ctx, l, func(ctx context.Context, _ int, damping float64) (infer.Sweep, error) {
		b.damp = damping
		return b.sweep()
	})
	res := &Result{Status: o.Status, Message: o.Message, Trace: o.Trace}
	b.stats.Iterations, b.stats.Adapted = o.Iterations, o.Adapted
	res.Stats = b.stats
	if o.Status == infer.Canceled {
		return res, ctx.Err()
	}
	if o.Status.HasNumbers() {
		if err := b.finish(res); err != nil {
			if errors.Is(err, netjoint.ErrCanceled) || ctx.Err() != nil {
				return &Result{Status: infer.Canceled, Message: "canceled", Stats: b.stats}, ctx.Err()
			}
			res.Status, res.Message = infer.Diverged, err.Error()
			res.Mean, res.Var, res.FMean, res.FVar, res.HasLogZ = nil, nil, nil, nil, false
		}
	}
	return res, nil
}

// sweep is one sweep: a sequential pass, or every site's update from one
// marginal pass followed by a pass that checks q and reads the marginals
// the next sweep's updates use (parallel). Its change is the residual of
// the projection marginals the updates read (parallel: will read).
func (b *bandEP) sweep() (infer.Sweep, error) {
	b.skip = 0
	upd, skipped := b.stats.Updates, b.stats.Skipped
	if !b.fresh {
		if err := b.pass(!b.parallel); err != nil {
			return infer.Sweep{}, err
		}
	}
	b.fresh = false
	if b.parallel {
		if err := b.parallelUpdate(); err != nil {
			b.stats.Updates, b.stats.Skipped, b.skip = upd, skipped, 0 // the sweep was undone
			return infer.Sweep{}, err
		}
	}
	sw := infer.Sweep{Updates: b.stats.Updates - upd, Skipped: b.skip, Why: "improper cavity or tilted marginal, or a message that would make the approximation improper"}
	r := 0.0
	for i := range b.sites {
		m, sd := b.fm[i], math.Sqrt(b.fv[i])
		d := math.Max(math.Abs(m-b.pm[i]), math.Abs(sd-b.ps[i]))/sd - b.floor[i]
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		r = math.Max(r, d)
		b.pm[i], b.ps[i] = m, sd
	}
	sw.Change = max(r, 0)
	return sw, nil
}

// parallelUpdate updates every site from the marginals of one pass, then
// assembles and eliminates q with the new sites, reading the marginals the
// next sweep starts from. When the negative site precisions of a likelihood
// that is not log-concave, all moved at once, leave q improper (errNotPD)
// the sites are put back and the sweep is reported as *infer.Rejected, so
// that infer.Iterate repeats it at half the step; with adapt_damping = false
// or at infer.MinDamping the error ends the run (diverged), as before.
func (b *bandEP) parallelUpdate() error {
	b.oldTau, b.oldNu = append(b.oldTau[:0], b.tau...), append(b.oldNu[:0], b.nu...)
	for i := range b.sites {
		if t, ok := b.propose(i); ok {
			b.tau[i], b.nu[i] = t.Prec, t.Shift
		}
	}
	err := b.pass(false)
	switch {
	case err == nil:
		b.fresh = true
	case errors.Is(err, errNotPD) && !b.fixed && b.damp > infer.MinDamping:
		copy(b.tau, b.oldTau)
		copy(b.nu, b.oldNu)
		err = &infer.Rejected{Err: err}
	}
	return err
}

// propose is site i's new message from the projection marginal
// N(fm_i, fv_i): the cavity marginal / t̃^u, then the shared site update
// (families.SiteUpdate.Propose: projection, power, damping).
// It reports false (a skipped update, counted) when the cavity or the
// tilted marginal is improper, or when the new message would leave q
// improper: adding Δτ a aᵀ to the window's marginal precision P_W keeps it
// positive definite exactly when 1 + Δτ aᵀP_W⁻¹a = 1 + Δτ fv_i > 0 (the
// matrix determinant lemma), and q's precision is positive definite when
// the Schur complement P_W and the eliminated blocks are.
func (b *bandEP) propose(i int) (families.Gaussian, bool) {
	old := families.Gaussian{Prec: b.tau[i], Shift: b.nu[i]}
	cav := families.Gaussian{Prec: 1/b.fv[i] - b.u*old.Prec, Shift: b.fm[i]/b.fv[i] - b.u*old.Shift}
	f := int(b.sites[i])
	if cav.Prec > 0 && finite(cav.Shift) {
		t, ok := families.SiteUpdate{Power: b.u, Damping: b.damp}.Propose(b.g.lik(f), b.g.obs(f), old, cav)
		if ok && 1+(t.Prec-old.Prec)*b.fv[i] > 0 {
			b.stats.Updates++
			return t, true
		}
	}
	b.stats.Skipped++
	b.skip++
	return old, false
}

// assemble fills the band and h with q's information form: the
// linear-Gaussian factors (addGaussians) and every site's message,
// τ̃ a aᵀ and (ν̃ − τ̃ c) a.
func (b *bandEP) assemble() {
	clear(b.band)
	clear(b.h)
	w := b.w
	addGaussians(b.g, func(i, j int, x float64) { b.band[i*w+j-i] += x }, b.h)
	for i := range b.sites {
		b.addSite(i, b.tau[i], b.nu[i], nil, nil)
	}
	for i := range b.diag {
		b.diag[i] = b.band[i*w]
	}
}

// addSite adds the message (τ, ν) of site i to the band and h and, when
// p is not nil, to the window's marginal information (p, hw).
func (b *bandEP) addSite(i int, tau, nu float64, p *blas64.Symmetric, hw []float64) {
	g, f, w := b.g, int(b.sites[i]), b.w
	fk := g.fac(f)
	lo, hi := fk.lo, fk.hi
	base := int(b.lo[i])
	lin := nu - tau*fk.c()
	for e := lo; e < hi; e++ {
		vi, ai := int(fk.v(e)), fk.a(e)
		b.h[vi] += lin * ai
		if hw != nil {
			hw[vi-base] += lin * ai
		}
		for e2 := lo; e2 < hi; e2++ {
			vj := int(fk.v(e2))
			if vj < vi {
				continue
			}
			x := tau * ai * fk.a(e2)
			b.band[vi*w+vj-vi] += x
			if p != nil {
				p.Data[(vi-base)*p.Stride+vj-base] += x
			}
		}
	}
}

// errNotPD is a pass's error when q's precision has a non-positive pivot:
// negative site precisions (a likelihood that is not log-concave) made the
// approximation improper.
var errNotPD = errors.New("the EP approximation's precision is not positive definite (negative site precisions)")

// pivotOK reports whether pivot p of a row whose assembled diagonal is d
// is positive beyond rounding (netjoint's tolerance for the same band).
func (b *bandEP) pivotOK(p, d float64) bool {
	return p > float64(4*b.w)*0x1p-52*d && !math.IsInf(p, 1)
}

// pass assembles q and eliminates its variables from the last, recording
// each group's backward correction, then from the first, reading every
// site's projection marginal into fm, fv as its window is reached and,
// when update, updating the site at once (sequential EP).
func (b *bandEP) pass(update bool) error {
	b.assemble()
	if err := b.backward(); err != nil {
		return err
	}
	return b.forward(update)
}

// backward eliminates the variables from the last down to the last
// group's window, keeping the corrections of the last w rows in the ring
// (row i in slot i mod w; the band holds the assembled values, unchanged),
// and records each group's correction of rows lo+1 … lo+k just before row
// lo + k is eliminated.
func (b *bandEP) backward() error {
	n, k, w := b.n, b.k, b.w
	clear(b.ring)
	clear(b.hr)
	ring := func(j, m int) *float64 { return &b.ring[(j%w)*w+m-j] }
	gi := len(b.groups) - 2
	for i := n - 1; i >= 0 && gi >= 0; i-- {
		if i&0x3fff == 0 && b.ctx.Err() != nil {
			return b.ctx.Err()
		}
		for ; gi >= 0 && int(b.lo[b.groups[gi]])+k >= i; gi-- {
			b.record(gi, i)
		}
		p := b.band[i*w] + *ring(i, i)
		if !b.pivotOK(p, b.diag[i]) {
			return errNotPD
		}
		hi := b.h[i] + b.hr[i%w]
		for j := max(0, i-k); j < i; j++ {
			fj := (b.band[j*w+i-j] + *ring(j, i)) / p
			b.hr[j%w] -= fj * hi
			for m := j; m < i; m++ {
				*ring(j, m) -= fj * (b.band[m*w+i-m] + *ring(m, i))
			}
		}
		clear(b.ring[(i%w)*w : (i%w+1)*w]) // the slot of row i − w
		b.hr[i%w] = 0
	}
	return nil
}

// record stores group gi's backward correction: the ring's rows
// lo+1 … min(lo+k, top), top the last row not yet eliminated (rows beyond
// n − 1 and beyond top carry none).
func (b *bandEP) record(gi, top int) {
	lo, k, w := int(b.lo[b.groups[gi]]), b.k, b.w
	d := b.dr[gi*b.drSize() : (gi+1)*b.drSize()]
	clear(d)
	for r := 0; r < k && lo+1+r <= top; r++ {
		row := lo + 1 + r
		for c := r; c < k && lo+1+c <= top; c++ {
			d[b.tri(r, c)] = b.ring[(row%w)*w+c-r]
		}
		d[k*(k+1)/2+r] = b.hr[row%w]
	}
}

// forward eliminates the variables from the first, stopping at each
// group's first variable lo to read (and, when update, update) its sites.
func (b *bandEP) forward(update bool) error {
	n, k, w := b.n, b.k, b.w
	next := 0
	for gi := 0; gi+1 < len(b.groups); gi++ {
		lo := int(b.lo[b.groups[gi]])
		for ; next < lo; next++ {
			if next&0x3fff == 0 && b.ctx.Err() != nil {
				return b.ctx.Err()
			}
			l := next
			p := b.band[l*w]
			if !b.pivotOK(p, b.diag[l]) {
				return errNotPD
			}
			for j := l + 1; j <= min(l+k, n-1); j++ {
				fj := b.band[l*w+j-l] / p
				b.h[j] -= fj * b.h[l]
				for m := j; m <= min(l+k, n-1); m++ {
					b.band[j*w+m-j] -= fj * b.band[l*w+m-l]
				}
			}
		}
		b.window(gi, lo)
		for i := int(b.groups[gi]); i < int(b.groups[gi+1]); i++ {
			if err := b.read(i); err != nil {
				return err
			}
			if !update {
				continue
			}
			if t, ok := b.propose(i); ok {
				b.addSite(i, t.Prec-b.tau[i], t.Shift-b.nu[i], &b.pw, b.hw)
				b.tau[i], b.nu[i] = t.Prec, t.Shift
			}
		}
	}
	return nil
}

// window forms the marginal information (P_W, h_W) of the window W =
// [lo, lo + k] of group gi: the forward Schur complement in the band's
// rows lo … lo + k plus the recorded backward correction; entries beyond
// n − 1 are the identity's, which the sites' projections do not touch.
func (b *bandEP) window(gi, lo int) {
	n, k, w := b.n, b.k, b.w
	d := b.dr[gi*b.drSize() : (gi+1)*b.drSize()]
	for r := 0; r < w; r++ {
		b.hw[r] = 0
		for c := r; c < w; c++ {
			x := 0.0
			switch {
			case lo+c >= n:
				if r == c {
					x = 1
				}
			default:
				x = b.band[(lo+r)*w+c-r]
				if r > 0 {
					x += d[b.tri(r-1, c-1)]
				}
			}
			b.pw.Data[r*w+c] = x
		}
		if lo+r < n {
			b.hw[r] = b.h[lo+r]
			if r > 0 {
				b.hw[r] += d[k*(k+1)/2+r-1]
			}
		}
	}
}

// read sets fm_i, fv_i to the marginal of site i's projection under
// (P_W, h_W): with P_W = UᵀU (lapack64.Potrf), x = P_W⁻¹a,
// v = ‖U⁻ᵀa‖² and m = xᵀh_W + c; and floor_i to their rounding level.
//
// The information form resolves a marginal only to the rounding of the
// precision's entries: P_W is Λ_WW less the eliminated parts, each entry
// computed to about η = 4w·ε·max_W Λ_ii (ε = 2⁻⁵²), so a perturbation δP
// with ‖δP‖ ≤ η moves v by up to η‖x‖² and m by up to η‖x‖‖μ_W‖. On a
// chain whose steps are precise but whose states wander far (a near
// constant velocity over hundreds of steps: Λ_ii ~ 10⁴ against a marginal
// variance ~ 10⁴) that is 10⁻⁶ of a standard deviation, where the sweeps'
// changes stop shrinking. The residual counts a site's change only beyond
// floor_i = η (‖x‖²/2v + ‖x‖‖μ_W‖/√v), in standard deviations; on a
// well-conditioned chain floor_i is ~10⁻¹² and changes nothing.
func (b *bandEP) read(i int) error {
	copy(b.pu.Data, b.pw.Data)
	u, ok := lapack64.Potrf(b.pu)
	if !ok {
		return errNotPD
	}
	g, f := b.g, int(b.sites[i])
	fk := g.fac(f)
	lo, hi := fk.lo, fk.hi
	base := int(b.lo[i])
	clear(b.xw)
	for e := lo; e < hi; e++ {
		b.xw[int(fk.v(e))-base] = fk.a(e)
	}
	x := blas64.Vector{N: b.w, Inc: 1, Data: b.xw}
	blas64.Trsv(blas.Trans, u, x) // U⁻ᵀa
	v := blas64.Dot(x, x)
	blas64.Trsv(blas.NoTrans, u, x) // P_W⁻¹a
	hw := blas64.Vector{N: b.w, Inc: 1, Data: b.hw}
	m := fk.c() + blas64.Dot(x, hw)
	if !(v > 0) || !finite(m, v) {
		return errNotPD
	}
	mu := blas64.Vector{N: b.w, Inc: 1, Data: b.mw}
	blas64.Copy(hw, mu)
	blas64.Trsv(blas.Trans, u, mu)
	blas64.Trsv(blas.NoTrans, u, mu) // μ_W = P_W⁻¹h_W
	lmax := 0.0
	for r := base; r < min(base+b.w, b.n); r++ {
		lmax = max(lmax, b.diag[r])
	}
	eta, nx := float64(4*b.w)*0x1p-52*lmax, blas64.Nrm2(x)
	b.fm[i], b.fv[i] = m, v
	b.floor[i] = eta * (nx*nx/(2*v) + nx*blas64.Nrm2(mu)/math.Sqrt(v))
	return nil
}

// finish fills res from the final messages: q's means and the band of its
// covariance (solveQ), the variables' marginals from its diagonal, each
// projection's marginal N(aᵀμ + c, aᵀΣ_W a) from its window W of the band
// (project), and log Z_EP when converged.
func (b *bandEP) finish(res *Result) error {
	mean, cov, logDet, err := b.solveQ()
	if err != nil {
		return err
	}
	vr := bandDiag(cov, b.n, b.k)
	for _, v := range vr {
		if !(v > 0) || math.IsInf(v, 0) {
			return errors.New("a marginal variance of the EP approximation is not positive and finite")
		}
	}
	res.Mean, res.Var = mean, vr
	res.FMean, res.FVar = make([]float64, len(b.sites)), make([]float64, len(b.sites))
	order := b.siteOrder()
	for i := range b.sites {
		b.fm[i], b.fv[i] = b.project(i, mean, cov)
		if !(b.fv[i] > 0) || !finite(b.fm[i], b.fv[i]) {
			return errNotPD
		}
		res.FMean[order[i]], res.FVar[order[i]] = b.fm[i], b.fv[i]
	}
	if res.Status == infer.Converged {
		res.LogZ, res.HasLogZ = b.logZ(mean, logDet)
	}
	return nil
}

// solveQ returns q's mean, the band of its covariance (row i holds
// Σ[i][i..i+k]) and the log det of its precision. When every site message
// is a Gaussian in f (τ̃ > 0, or τ̃ = ν̃ = 0) q is solved as the
// linear-Gaussian band is (bandJoint), in square-root information form
// (netjoint.RootBand), each message a row √τ̃ a, (ν̃ − τ̃ c)/√τ̃ beside the
// factors' rows: on an ill-conditioned chain the final marginals and
// log Z_EP then keep the digits that q's information band loses. A
// negative site precision (a likelihood that is not log-concave) is no row
// of a least-squares system, and q then takes the information form on the
// band (netjoint.GaussBlock: Cholesky factor of the assembled precision
// and selected inverse).
func (b *bandEP) solveQ() (mean, cov []float64, logDet float64, err error) {
	g, done := b.g, b.ctx.Done()
	pos, rows := make([]int32, g.NumFactors()), true
	for i, f := range b.sites {
		pos[f] = int32(i)
		rows = rows && (b.tau[i] > 0 || b.tau[i] == 0 && b.nu[i] == 0)
	}
	if rows {
		rb := netjoint.NewRootBand(b.n, b.k)
		err := rootRows(g, rb, done, func(f int) bool { return g.gaussian(f) || b.tau[pos[f]] > 0 }, func(f int, fk fac) (float64, float64) {
			if fk.gaussian() {
				s := math.Sqrt(fk.variance())
				return 1 / s, (fk.y() - fk.c()) / s
			}
			t, nu := b.tau[pos[f]], b.nu[pos[f]]
			s := math.Sqrt(t)
			return s, (nu - t*fk.c()) / s
		})
		if err != nil {
			return nil, nil, 0, err
		}
		mean, cov, err = rb.SolveDone(done)
		return mean, cov, rb.LogDet(), err
	}
	b.assemble()
	gb := netjoint.NewGaussBlock(b.n, b.k)
	w := b.w
	for i := 0; i < b.n; i++ {
		for j := i; j <= min(i+b.k, b.n-1); j++ {
			gb.Add(i, j, b.band[i*w+j-i])
		}
	}
	copy(gb.B, b.h)
	_, mean, _, err = gb.IntegrateDone(done)
	if err != nil {
		return nil, nil, 0, err
	}
	return mean, gb.CovBand(), gb.LogDet(), nil
}

// project is the marginal N(m, v) of site i's projection aᵀx + c under q
// from q's mean and the band of its covariance: the site's variables lie
// within the band (siteBandwidth), so every Σ_uv it needs is there.
func (b *bandEP) project(i int, mean, cov []float64) (m, v float64) {
	g, f, w := b.g, int(b.sites[i]), b.w
	fk := g.fac(f)
	lo, hi := fk.lo, fk.hi
	m = fk.c()
	for e := lo; e < hi; e++ {
		vi, ai := int(fk.v(e)), fk.a(e)
		m += ai * mean[vi]
		for e2 := lo; e2 < hi; e2++ {
			r, c := min(vi, int(fk.v(e2))), max(vi, int(fk.v(e2)))
			v += ai * fk.a(e2) * cov[r*w+c-r]
		}
	}
	return m, v
}

// siteOrder maps each site (in band order) to its place among the sites
// in the order they were added (the order of Result.FMean).
func (b *bandEP) siteOrder() []int {
	rank := make(map[int32]int, len(b.sites))
	for f, k := 0, 0; f < b.g.NumFactors(); f++ {
		if !b.g.gaussian(f) {
			rank[int32(f)] = k
			k++
		}
	}
	out := make([]int, len(b.sites))
	for i, f := range b.sites {
		out[i] = rank[f]
	}
	return out
}

// logZ is log Z_EP of the final messages (power EP's evidence under
// alpha), from q's mean μ and log det of its precision:
//
//	log Z = log Z_q + Σ_s (1/u) [log Ẑ_s − log ∫ t̃_s^u q\s],
//	log Z_q = Q(μ) + (n/2) log 2π − ½ log det Λ_q,
//	Q(μ) = Σ_k log N(y_k; a_kᵀμ + c_k, σ_k²) + Σ_s (−½ τ̃_s f_s² + ν̃_s f_s),   f_s = a_sᵀμ + c_s,
//	log ∫ t̃_s^u q\s = logNorm(q_s) − logNorm(q\s),
//
// with q_s = N(fm_s, fv_s) the projection's marginal, q\s = q_s / t̃_s^u
// its cavity and Ẑ_s = ∫ p(y_s | f)^u q\s(f) df (Minka 2001; infer/ep's
// logZEP in site space). log Z_q is written, as in bandJoint, with the
// quadratic form at its maximum μ, which avoids the cancellation of
// ½ hᵀΛ⁻¹h against the observations' squares on a long chain.
func (b *bandEP) logZ(mu []float64, logDet float64) (float64, bool) {
	g := b.g
	terms := []float64{residualLogLik(g, mu), 0.5 * float64(b.n) * math.Log(2*math.Pi), -0.5 * logDet}
	for i, f := range b.sites {
		fk := g.fac(int(f))
		lo, hi := fk.lo, fk.hi
		fs := fk.c()
		for e := lo; e < hi; e++ {
			fs += fk.a(e) * mu[fk.v(e)]
		}
		t := families.Gaussian{Prec: b.tau[i], Shift: b.nu[i]}
		marg := families.Gaussian{Prec: 1 / b.fv[i], Shift: b.fm[i] / b.fv[i]}
		cav := families.Gaussian{Prec: marg.Prec - b.u*t.Prec, Shift: marg.Shift - b.u*t.Shift}
		if !(cav.Prec > 0) {
			return 0, false
		}
		lz, _, _ := g.liks[fk.site()].Tilted(fk.y(), cav.Shift/cav.Prec, 1/cav.Prec, b.u)
		terms = append(terms, -0.5*t.Prec*fs*fs+t.Shift*fs, (lz-logNorm(marg)+logNorm(cav))/b.u)
	}
	z := floats.SumCompensated(terms)
	return z, finite(z)
}
