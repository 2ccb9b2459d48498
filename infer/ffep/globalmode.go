package ffep

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer"
)

// The Laplace schemes (LA, QLA) expand each log f_k at a point chosen from
// the local shape of the tilted distribution. With factors that are not
// log-concave the posterior
//
//	F(w) = Σ_i log N(w_i; m_i, v_i) + Σ_k log f_k(w)
//
// can have several modes, and a Laplace-EP fixed point in the basin of a
// lower mode passes every convergence test: on Minka's clutter problem the
// first factors visited pull it to a mode 20 nats below the global one.
// The Laplace approximations of Kuss & Rasmussen (2005, Laplace's method
// for GP classification) and of INLA (Rue, Martino & Chopin 2009, the
// Gaussian approximation of the full conditional) locate the mode of the
// whole posterior by Newton's method, which is enough when F is unimodal
// (log-concave likelihoods). For the multimodal case we search from
// several starts: a converged (or stalled) Laplace run whose expansions
// met a locally convex log f (NonLogConcave > 0) is checked by ascending F
// from its mean, the prior mean and the points m ± kσ (k = 1, 2, all
// coordinates together, σ the prior standard deviations). If the best mode
// found is higher than the one the result ascends to, the sites are
// restarted from the Laplace approximation at the best mode (warmStart)
// and EP runs again. A result that still ascends to a lower mode is
// Stalled with the reason. The search is a heuristic: it finds the modes
// whose basins contain one of the starting points.

// modeStarts are the multiples k of the prior standard deviation at which
// the multi-start search starts besides the result's mean (k = 0 is the
// prior mean).
var modeStarts = []float64{0, 1, -1, 2, -2}

// sumPotential is Σ_k log f_k as one potential.
type sumPotential struct {
	fs   []Potential
	g, h []float64
}

func (s *sumPotential) LogF(w []float64) float64 {
	var v float64
	for _, f := range s.fs {
		v += f.LogF(w)
	}
	return v
}

func (s *sumPotential) Derivs(w, grad, hdiag []float64) float64 {
	clear(grad)
	clear(hdiag)
	var v float64
	for _, f := range s.fs {
		v += f.Derivs(w, s.g, s.h)
		for i := range grad {
			grad[i] += s.g[i]
			hdiag[i] += s.h[i]
		}
	}
	return v
}

// modeSearch is the state of the multi-start search of one run.
type modeSearch struct {
	sum    *sumPotential
	m, sd  []float64 // prior mean and standard deviations
	best   []float64 // best mode found
	fBest  float64
	tol    float64
	iters  int
	starts [][]float64
}

func (e *engine) newModeSearch() *modeSearch {
	ms := &modeSearch{sum: &sumPotential{fs: e.p.Factors, g: make([]float64, e.d), h: make([]float64, e.d)},
		m: e.p.PriorMean, sd: make([]float64, e.d), fBest: math.Inf(-1),
		tol: math.Min(e.s.Scheme.tol(), 1e-8), iters: 20 * e.s.Scheme.maxIter()}
	for i, v := range e.p.PriorVar {
		ms.sd[i] = math.Sqrt(v)
	}
	for _, k := range modeStarts {
		st := make([]float64, e.d)
		for i := range st {
			st[i] = ms.m[i] + k*ms.sd[i]
		}
		ms.starts = append(ms.starts, st)
	}
	return ms
}

// ascend climbs F from start and returns the mode reached and F there
// (−Inf when F is not finite along the way or ctx ended the climb).
func (ms *modeSearch) ascend(ctx context.Context, w *work, start []float64) ([]float64, float64) {
	stop := func() bool { return ctx.Err() != nil }
	if _, err := w.mode(ms.sum, start, ms.m, ms.sd, ms.tol, ms.iters, stop); err != nil || stop() {
		return nil, math.Inf(-1)
	}
	at := append([]float64(nil), w.theta...)
	f := penalised(ms.sum.LogF(at), at, ms.m, ms.sd)
	if !finite(f) {
		return nil, math.Inf(-1)
	}
	if f > ms.fBest {
		ms.best, ms.fBest = at, f
	}
	return at, f
}

// search ascends from every start; false when the context ended.
func (ms *modeSearch) search(ctx context.Context, w *work) bool {
	for _, st := range ms.starts {
		ms.ascend(ctx, w, st)
	}
	return ctx.Err() == nil
}

// gap is how much higher the best mode must be than the result's mode for
// the result to count as sitting at a lower mode: well above the error of
// a Newton search stopped at relative step 1e-8.
func (ms *modeSearch) gap() float64 { return 1e-6 * (1 + math.Abs(ms.fBest)) }

// checksMode reports whether a converged or stalled run needs the
// global-mode check.
func (e *engine) checksMode() bool {
	k := e.s.Scheme.Kind
	return (k == Laplace || k == QuickLaplace) && e.lamS != nil && e.res.NonLogConcave > 0
}

// globalCheck runs the multi-start search after a converged or stalled
// Laplace run (see the comment at the top of this file) and restarts EP
// from the best mode when the result sits in the basin of a lower one.
func (e *engine) globalCheck(ctx context.Context) *Result {
	ms := e.newModeSearch()
	_, fHere := ms.ascend(ctx, e.w, e.mean)
	if !ms.search(ctx, e.w) {
		return e.finish(infer.Canceled, "canceled: "+ctx.Err().Error())
	}
	if ms.fBest <= fHere+ms.gap() {
		return e.res
	}
	e.res.ModeRestarts++
	e.warmStart(ms.best)
	res := e.sweeps(ctx)
	if res.Status != infer.Converged {
		return res
	}
	_, fHere = ms.ascend(ctx, e.w, e.mean)
	if ctx.Err() != nil {
		return e.finish(infer.Canceled, "canceled: "+ctx.Err().Error())
	}
	if ms.fBest > fHere+ms.gap() {
		return e.finish(infer.Stalled, fmt.Sprintf(
			"the %v fixed point is in the basin of a local mode of the posterior (log density %.6g there, %.3g below the mode at %.4g found by a multi-start Newton search), also when restarted from that mode",
			e.s.Scheme.Kind, fHere, ms.fBest-fHere, ms.best))
	}
	return res
}

// warmStart sets every site to the Laplace expansion of its factor at t,
// with the curvature clipped at zero so that every site and q are proper:
//
//	λ_k = max(−∂²log f_k(t), 0),  η_k = ∂log f_k(t) + λ_k t.
//
// Since ∇F(t) = 0 at a mode, Σ_k ∂log f_k(t) = (t − m)/v and the mean of
// q = prior × Π_k g_k is exactly t.
func (e *engine) warmStart(t []float64) {
	for i := range e.d {
		e.lamQ[i] = 1 / e.p.PriorVar[i]
		e.etaQ[i] = e.p.PriorMean[i] / e.p.PriorVar[i]
	}
	for k, f := range e.p.Factors {
		f.Derivs(t, e.w.grad, e.w.hess)
		ok := true
		for i := range e.d {
			ok = ok && finite(e.w.grad[i]) && finite(e.w.hess[i])
		}
		for i := range e.d {
			lam, eta := 0.0, 0.0
			if ok {
				lam = math.Max(-e.w.hess[i], 0)
				eta = e.w.grad[i] + lam*t[i]
			}
			e.lamS[k][i], e.etaS[k][i] = lam, eta
			e.lamQ[i] += lam
			e.etaQ[i] += eta
		}
	}
}
