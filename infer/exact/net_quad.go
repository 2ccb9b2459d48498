package exact

import (
	"context"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/netjoint"
)

// errZeroEvidence reports a model whose every configuration has zero probability.
var errZeroEvidence = errors.New("exact: the evidence is zero: every configuration has zero probability")

// quadScale is the standard deviation, in unconstrained coordinates, of
// the whitening Gaussian that the quadrature starts from (Run's stage 1
// box is ±HalfWidth of it, e^±20 on (0, ∞)); stage 2 re-whitens by the
// posterior.
const quadScale = 2

// quadOut is one configuration integrated by quadrature.
type quadOut struct {
	logZ           float64
	mean, mom, inv [][]float64
	status         infer.Status
	message        string
	errEst         float64
}

// quadrature integrates the quadrature variables numerically in their
// unconstrained coordinates u (netjoint.FromU) and the free ones in closed
// form at every node:
//
//	Z_c = ∫ exp(log Z_free(θ(u)) + log |dθ/du|) du,
//
// written for Run as a Gaussian N(u; u_ref, quadScale² I) times the
// log-likelihood log Z_free + log |dθ/du| − log N(u; u_ref, quadScale² I).
func (p *partPlan) quadrature(ctx context.Context, s NetSettings, st *condState, x []float64) (*quadOut, error) {
	m0 := p.quadCentre()
	d := len(m0)
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		cov.SetSym(i, i, quadScale*quadScale)
	}
	var fail error
	var last []float64
	var lastCond *cond
	at := func(u []float64) (*cond, float64) {
		if last != nil && slices.Equal(u, last) {
			return lastCond, 0
		}
		logJ := p.setQuad(x, u)
		cd, err := p.conditional(st, x)
		if err != nil {
			if fail == nil {
				fail = err
			}
			return nil, 0
		}
		last, lastCond = append(last[:0], u...), cd
		return cd, logJ
	}
	ll := func(u []float64) float64 {
		last = nil
		cd, logJ := at(u)
		if cd == nil {
			return math.Inf(-1)
		}
		return cd.logZ + logJ - logNormal(u, m0, quadScale)
	}
	r, err := Run(ctx, Problem{Mean: m0, Cov: cov, LogLik: ll}, Settings{Tol: s.Tol, MaxEval: s.MaxEval})
	if fail != nil {
		return nil, fail
	}
	if err != nil {
		return nil, err
	}
	out := &quadOut{logZ: r.LogZ, status: r.Status, message: r.Message, errEst: r.ErrEstimate}
	gs, place := p.momentFuncs(x, at)
	vals, _, err := r.Expect(ctx, gs)
	if fail != nil {
		return nil, fail
	}
	if err != nil {
		return nil, err
	}
	out.mean, out.mom, out.inv = place(vals)
	return out, nil
}

// momentFuncs lists E[θ_k], E[θ_k²] of every continuous coordinate, and
// E[1/θ] of every Gamma and inverse Gamma variable, as functions of u (the
// quadrature variables' values, the free ones' conditional moments), and
// place turns their expectations into per variable means, second moments
// and E[1/θ] (nil for the other families).
func (p *partPlan) momentFuncs(x []float64, at func(u []float64) (*cond, float64)) ([]func([]float64) float64, func([]float64) (mean, mom, inv [][]float64)) {
	var gs []func([]float64) float64
	type slot struct {
		v, k int
		inv  bool
	}
	var slots []slot
	for v, nv := range p.j.Net.Vars {
		if nv.Family == graph.Discrete {
			continue
		}
		for k := range p.j.Value(v, x) {
			v, k, isQuad := v, k, slices.Contains(p.quad, v)
			gs = append(gs,
				func(u []float64) float64 {
					cd, _ := at(u)
					if isQuad || cd == nil {
						return p.j.Value(v, x)[k]
					}
					return cd.mean[v][k]
				},
				func(u []float64) float64 {
					cd, _ := at(u)
					if isQuad || cd == nil {
						t := p.j.Value(v, x)[k]
						return t * t
					}
					return cd.mom[v][k]
				})
			slots = append(slots, slot{v, k, false})
		}
		if nv.Family == graph.Gamma || nv.Family == graph.InvGamma {
			v, isQuad := v, slices.Contains(p.quad, v)
			gs = append(gs, func(u []float64) float64 {
				cd, _ := at(u)
				if isQuad || cd == nil {
					return 1 / p.j.Value(v, x)[0]
				}
				return cd.inv[v][0]
			})
			slots = append(slots, slot{v, 0, true})
		}
	}
	place := func(vals []float64) (mean, mom, inv [][]float64) {
		n := len(p.j.Net.Vars)
		mean, mom, inv = make([][]float64, n), make([][]float64, n), make([][]float64, n)
		i := 0
		for _, sl := range slots {
			if sl.inv {
				inv[sl.v] = []float64{vals[i]}
				i++
				continue
			}
			if mean[sl.v] == nil {
				w := len(p.j.Value(sl.v, x))
				mean[sl.v], mom[sl.v] = make([]float64, w), make([]float64, w)
			}
			mean[sl.v][sl.k], mom[sl.v][sl.k] = vals[i], vals[i+1]
			i += 2
		}
		return mean, mom, inv
	}
	return gs, place
}

// quadCentre is the reference point of the quadrature variables in u.
func (p *partPlan) quadCentre() []float64 {
	x := make([]float64, p.j.Len())
	p.j.Reference(x)
	var m0 []float64
	for _, v := range p.quad {
		u := make([]float64, netjoint.UDim(p.j.Net.Vars[v]))
		netjoint.ToU(p.j.Net.Vars[v].Family, p.j.Value(v, x), u)
		m0 = append(m0, u...)
	}
	return m0
}

// setQuad sets the quadrature variables of x from u and returns log |dθ/du|.
func (p *partPlan) setQuad(x, u []float64) float64 {
	logJ := 0.0
	for _, v := range p.quad {
		nv := p.j.Net.Vars[v]
		d := netjoint.UDim(nv)
		logJ += netjoint.FromU(nv.Family, u[:d], p.j.Value(v, x))
		u = u[d:]
	}
	return logJ
}

// logNormal is log N(u; m, s² I).
func logNormal(u, m []float64, s float64) float64 {
	l := 0.0
	for i := range u {
		z := (u[i] - m[i]) / s
		l -= 0.5*z*z + math.Log(s) + 0.5*math.Log(2*math.Pi)
	}
	return l
}
