package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/netjoint"
)

// maxLocalConfigs bounds the configurations of one factor's discrete
// variables that planning probes and the fit cache holds.
const maxLocalConfigs = 4096

// maxProbes bounds the factor probes of planning (candidate sets of
// quadrature variables × factors), so that a large model whose factors are
// not conjugate is refused quickly rather than searched.
const maxProbes = 1 << 20

// maxGaussComponent bounds the Gaussian latents integrated jointly in
// closed form with a dense precision (an n×n Cholesky factor, O(n³), per
// configuration: the context is checked between configurations); a banded
// one (netjoint.RootBand) has no bound.
const maxGaussComponent = 1000

// local holds, per factor, its discrete variables, the strides of its
// local configuration index and the cached fits by local configuration.
type local struct {
	sel     []int
	quad    bool // the factor touches a quadrature variable
	configs int  // 0 when above maxLocalConfigs
	fits    []*netjoint.Contrib
}

func (p *partPlan) locals() []local {
	ls := make([]local, len(p.j.Net.Factors))
	for fi := range ls {
		ls[fi].sel = p.j.Selectors(fi)
		for _, e := range p.j.Net.Factors[fi].Edges {
			for _, v := range e.VarsOf() {
				ls[fi].quad = ls[fi].quad || slices.Contains(p.quad, v)
			}
		}
		n := 1
		for _, v := range ls[fi].sel {
			n *= p.j.Net.Vars[v].Dim
			if n > maxLocalConfigs {
				n = 0
				break
			}
		}
		ls[fi].configs = n
	}
	return ls
}

// index is the factor's local configuration at x.
func (l *local) index(j *netjoint.Joint, x []float64) int {
	i := 0
	for _, v := range l.sel {
		i = i*j.Net.Vars[v].Dim + j.State(v, x)
	}
	return i
}

// setIndex sets the factor's discrete variables in x to local configuration i.
func (l *local) setIndex(j *netjoint.Joint, x []float64, i int) {
	for k := len(l.sel) - 1; k >= 0; k-- {
		d := j.Net.Vars[l.sel[k]].Dim
		x[j.Off(l.sel[k])] = float64(i % d)
		i /= d
	}
}

// chooseQuad finds the smallest set of continuous variables (at most
// MaxQuadDim unconstrained coordinates, non-Gaussian ones first) given
// which every factor is conjugate in the rest, probing each factor at the
// reference point in each of its local configurations.
func (p *partPlan) chooseQuad(cont []int) error {
	first := p.tryQuad(cont, nil)
	if first == nil {
		return p.gaussComponents()
	}
	order := slices.Clone(cont)
	slices.SortStableFunc(order, func(a, b int) int {
		ga, gb := p.j.Net.Vars[a].Family == graph.Gaussian, p.j.Net.Vars[b].Family == graph.Gaussian
		switch {
		case ga == gb:
			return 0
		case gb:
			return -1
		}
		return 1
	})
	// by size: sets of one variable, then two, then three
	sets := max(maxProbes/max(len(p.j.Net.Factors), 1), 1)
	for size := 1; size <= MaxQuadDim; size++ {
		if p.trySize(order, cont, size, sets) {
			return p.gaussComponents()
		}
	}
	return fmt.Errorf("exact: no closed form (%v) and no set of at most %d coordinates to integrate numerically that leaves the rest conjugate; use mcmc", first, MaxQuadDim)
}

// trySize tries the sets of size variables of order with at most
// MaxQuadDim coordinates (at most sets of them); it sets p.quad to the
// first that works.
func (p *partPlan) trySize(order, cont []int, size, sets int) bool {
	idx := make([]int, size)
	var rec func(k, start, dim int) bool
	tried := 0
	rec = func(k, start, dim int) bool {
		if k == size {
			q := make([]int, size)
			for i, t := range idx {
				q[i] = order[t]
			}
			tried++
			if p.tryQuad(cont, q) == nil {
				p.quad = q
				return true
			}
			return false
		}
		for i := start; i < len(order) && tried < sets; i++ {
			d := dim + netjoint.UDim(p.j.Net.Vars[order[i]])
			if d > MaxQuadDim {
				continue
			}
			idx[k] = i
			if rec(k+1, i+1, d) {
				return true
			}
		}
		return false
	}
	return rec(0, 0, 0)
}

// tryQuad probes every factor with the continuous variables outside q
// free. With q empty the probes are the fits enumeration needs (a fit
// then depends on the factor's discrete states only): they are kept.
func (p *partPlan) tryQuad(cont, q []int) error {
	for v := range p.free {
		p.free[v] = false
	}
	for _, v := range cont {
		p.free[v] = !slices.Contains(q, v)
	}
	x := make([]float64, p.j.Len())
	p.j.Reference(x)
	ls := p.locals()
	keep := len(q) == 0
	for fi := range ls {
		l := &ls[fi]
		n := max(l.configs, 1)
		if keep && l.configs > 0 {
			l.fits = make([]*netjoint.Contrib, l.configs)
		}
		for i := 0; i < n; i++ {
			if l.configs > 0 {
				l.setIndex(p.j, x, i)
			}
			c, err := p.j.FitFactor(fi, p.free, x)
			if err != nil {
				return err
			}
			if l.fits != nil {
				l.fits[i] = &c
			}
		}
		for _, v := range l.sel {
			x[p.j.Off(v)] = 0
		}
	}
	if keep {
		p.probed = ls
	}
	return nil
}

// gaussComp is a set of free Gaussian variables that factors couple (over
// every branch), integrated jointly.
type gaussComp struct {
	vars []int
	band int // the largest distance in vars of two latents a factor couples
}

// gaussComponents groups the free Gaussian variables that factors couple
// (graph.Net's Components) and checks their sizes.
func (p *partPlan) gaussComponents() error {
	n := p.j.Net
	p.comp = make([]int, len(n.Vars))
	p.pos = make([]int, len(n.Vars))
	for v := range p.comp {
		p.comp[v] = -1
	}
	for c, vars := range n.Components(func(v int) bool { return p.free[v] && n.Vars[v].Family == graph.Gaussian }) {
		for i, v := range vars {
			p.comp[v], p.pos[v] = c, i
		}
		p.comps = append(p.comps, gaussComp{vars: vars})
	}
	var blocks [][]int
	for _, c := range p.comps {
		blocks = append(blocks, c.vars)
	}
	for c, k := range netjoint.Bandwidths(n, blocks) {
		p.comps[c].band = k
	}
	for _, c := range p.comps {
		if len(c.vars) > maxGaussComponent && netjoint.NewGaussBlock(len(c.vars), c.band).Dense() {
			return fmt.Errorf("exact: %d Gaussian latents coupled in one closed-form block (%s, …), more than %d (a chain or any band of half-width at most %d has no limit)",
				len(c.vars), n.Vars[c.vars[0]].Name, maxGaussComponent, netjoint.MaxBand)
		}
	}
	return nil
}

// cond is the posterior of the continuous latents given the discrete
// states and the quadrature variables at x: the log of the integral of
// Π_f f over the free variables, and per variable the conditional mean,
// second moment, E[1/θ] (a positive scalar family's; NaN for the others)
// and natural parameters in its family.
type cond struct {
	logZ           float64
	mean, mom, inv [][]float64
	nat            [][]float64
}

// condState is the working storage of conditional, one per goroutine.
type condState struct {
	ctx    context.Context // checked every 2¹⁶ factors
	locals []local
	eta    [][]float64
	gauss  []*netjoint.GaussBlock // per Gaussian component
	parts  [][]*netjoint.Contrib  // per Gaussian component, its contributions
	out    cond
}

func (p *partPlan) newCondState(ctx context.Context) *condState {
	n := p.j.Net
	st := &condState{ctx: ctx, locals: p.probed, eta: make([][]float64, len(n.Vars))}
	if st.locals == nil {
		st.locals = p.locals()
	}
	st.out.mean = make([][]float64, len(n.Vars))
	st.out.mom = make([][]float64, len(n.Vars))
	st.out.inv = make([][]float64, len(n.Vars))
	st.out.nat = make([][]float64, len(n.Vars))
	for v, nv := range n.Vars {
		if p.free[v] && nv.Family != graph.Gaussian {
			st.eta[v] = make([]float64, families.For(nv.Family, nv.Dim).Len())
		}
	}
	for _, c := range p.comps {
		st.gauss = append(st.gauss, netjoint.NewGaussBlock(len(c.vars), c.band))
	}
	st.parts = make([][]*netjoint.Contrib, len(p.comps))
	return st
}

// errImproper reports a conditional posterior that does not normalise.
var errImproper = errors.New("improper posterior")

// fit returns factor fi's contribution at x, from the cache when the
// factor's fit depends on its discrete states only (it touches no
// quadrature variable).
func (p *partPlan) fit(st *condState, fi int, x []float64) (*netjoint.Contrib, error) {
	l := &st.locals[fi]
	cacheable := l.configs > 0 && !l.quad
	if cacheable {
		if l.fits == nil {
			l.fits = make([]*netjoint.Contrib, l.configs)
		}
		if c := l.fits[l.index(p.j, x)]; c != nil {
			return c, nil
		}
	}
	c, err := p.j.FitFactor(fi, p.free, x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.j.Net.Fset.Position(p.j.Net.Factors[fi].Pos), err)
	}
	if cacheable {
		l.fits[l.index(p.j, x)] = &c
	}
	return &c, nil
}

// conditional integrates the free variables at x in closed form.
func (p *partPlan) conditional(st *condState, x []float64) (*cond, error) {
	for _, e := range st.eta {
		clear(e)
	}
	for ci, g := range st.gauss {
		g.Zero()
		st.parts[ci] = st.parts[ci][:0]
	}
	out := &st.out
	out.logZ = 0
	for fi := range p.j.Net.Factors {
		if fi&0xffff == 0xffff {
			if err := st.ctx.Err(); err != nil {
				return nil, err
			}
		}
		c, err := p.fit(st, fi, x)
		if err != nil {
			return nil, err
		}
		if len(c.Gauss) == 0 { // a Gaussian contribution's C is its component's (gaussPosterior)
			out.logZ += c.C
		}
		if c.Var >= 0 {
			for k, e := range c.Eta {
				st.eta[c.Var][k] += e
			}
		}
		p.addGauss(st, c)
	}
	for v, eta := range st.eta {
		if eta == nil {
			continue
		}
		if err := p.familyPosterior(v, eta, out); err != nil {
			return nil, err
		}
	}
	for ci := range p.comps {
		if err := p.gaussPosterior(st, ci, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addGauss adds a quadratic contribution to its component.
func (p *partPlan) addGauss(st *condState, c *netjoint.Contrib) {
	n := len(c.Gauss)
	if n > 0 {
		ci := p.comp[c.Gauss[0]]
		st.parts[ci] = append(st.parts[ci], c)
	}
	for i, v := range c.Gauss {
		ci, pi := p.comp[v], p.pos[v]
		st.gauss[ci].B[pi] += c.B[i]
		for k, u := range c.Gauss {
			if pk := p.pos[u]; pk >= pi {
				st.gauss[ci].Add(pi, pk, c.P[i*n+k])
			}
		}
	}
}

// familyPosterior adds A(η) to the log evidence and sets v's moments.
func (p *partPlan) familyPosterior(v int, eta []float64, out *cond) error {
	nv := p.j.Net.Vars[v]
	sp := families.For(nv.Family, nv.Dim)
	if !sp.Proper(eta) {
		return fmt.Errorf("%s: %w (%s with natural parameters %v)", nv.Name, errImproper, nv.Family, eta)
	}
	out.logZ += sp.LogNormalizer(eta)
	m, vr := make([]float64, nv.Dim), make([]float64, nv.Dim)
	sp.Moments(eta, m, vr)
	out.nat[v], out.mean[v] = slices.Clone(eta), m
	out.inv[v] = []float64{families.MeanInv(nv.Family, eta)}
	out.mom[v] = make([]float64, len(m))
	for k := range m {
		out.mom[v][k] = vr[k] + m[k]*m[k]
	}
	return nil
}

// gaussPosterior integrates component ci and sets its latents' Gaussian
// posteriors: on a band whose contributions all have rows (rootPosterior)
// in square-root information form, else in information form
// (netjoint.GaussBlock): a dense block's factor costs O(n³) either way and
// the information form's Cholesky is the faster one, and a contribution
// without rows (an indefinite quadratic that only the sum makes proper, a
// linear tilt) cannot be folded as a row.
func (p *partPlan) gaussPosterior(st *condState, ci int, out *cond) error {
	vars := p.comps[ci].vars
	logZ, mean, vr, err := p.rootPosterior(st, ci)
	if mean == nil && err == nil {
		logZ, mean, vr, err = st.gauss[ci].Integrate()
		for _, f := range st.parts[ci] {
			logZ += f.C
		}
	}
	if errors.Is(err, netjoint.ErrCanceled) {
		return st.ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", p.j.Net.Vars[vars[0]].Name, errImproper, err)
	}
	out.logZ += logZ
	for i, v := range vars {
		m := mean[i]
		out.mean[v], out.mom[v] = []float64{m}, []float64{vr[i] + m*m}
		out.inv[v] = []float64{math.NaN()}
		out.nat[v] = []float64{m / vr[i], -0.5 / vr[i]}
	}
	return nil
}

// rootPosterior integrates a banded component ci whose contributions all
// carry rows (netjoint.QuadRows) in square-root information form
// (netjoint.RootBand): the rows folded by Givens rotations in order of
// their first variable, never summing Λ, whose Cholesky factor resolves
// Λ⁻¹ only to κ(Λ)·ε (10⁻⁴ relative in the variances of a 900-step
// near-constant-velocity chain, TestNetBandPrecision). Each contribution
// is −½ Σ_r (a_rᵀx − c_r)² + K_f with K_f = C_f + ½ Σ_r c_r², its value
// at its own minimum, so
//
//	log Z = Σ_f K_f − ½ Σ_r (a_rᵀμ − c_r)² + (n/2) log 2π − ½ log det Λ,
//
// with the residuals at the mean: the information form's
// ½ Bᵀμ + Σ_f C_f cancels two sums that grow as the squared states (as
// bandJoint in infer/fgraph). It returns no mean (and no error) when the
// component is dense or a contribution has no rows.
func (p *partPlan) rootPosterior(st *condState, ci int) (logZ float64, mean, vr []float64, err error) {
	c := p.comps[ci]
	if st.gauss[ci].Dense() {
		return 0, nil, nil, nil
	}
	type row struct {
		lo int
		a  []float64
		b  float64
	}
	var rows []row
	k := make([]float64, 0, len(st.parts[ci]))
	for _, f := range st.parts[ci] {
		if f.Rows == nil {
			return 0, nil, nil, nil
		}
		kf := f.C
		for _, b := range f.RowB {
			kf += 0.5 * b * b
		}
		k = append(k, kf)
		n, lo, hi := len(f.Gauss), len(c.vars), -1
		for _, v := range f.Gauss {
			lo, hi = min(lo, p.pos[v]), max(hi, p.pos[v])
		}
		for r, b := range f.RowB {
			a := make([]float64, hi-lo+1)
			for i, v := range f.Gauss {
				a[p.pos[v]-lo] += f.Rows[r*n+i]
			}
			rows = append(rows, row{lo, a, b})
		}
	}
	slices.SortStableFunc(rows, func(x, y row) int { return x.lo - y.lo })
	rb := netjoint.NewRootBand(len(c.vars), c.band)
	for _, r := range rows {
		rb.AddRow(r.lo, r.a, r.b)
	}
	mean, cov, err := rb.SolveDone(st.ctx.Done())
	if err != nil {
		return 0, nil, nil, err
	}
	w := c.band + 1
	vr = make([]float64, len(c.vars))
	for i := range vr {
		vr[i] = cov[i*w]
	}
	for _, r := range rows {
		e := -r.b
		for j, a := range r.a {
			e += a * mean[r.lo+j]
		}
		k = append(k, -0.5*e*e)
	}
	return floats.SumCompensated(k) + 0.5*float64(len(c.vars))*math.Log(2*math.Pi) - 0.5*rb.LogDet(), mean, vr, nil
}
