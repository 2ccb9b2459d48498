package run

import (
	"fmt"
	"math"
	"slices"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/loss"
)

// Stan's thresholds for trusting MCMC summaries (Vehtari et al. 2021, §4):
// split R-hat at most 1.01 and an effective sample size of at least 400
// (100 per chain for 4 chains).
const (
	MaxRHat = 1.01
	MinESS  = 400
)

// warn adds the run-time warnings that every engine's result can carry:
// the damping steps the iteration driver adapted, skipped updates and
// sampling diagnostics outside Stan's thresholds. Engine-specific warnings
// (quadrature error, a degenerate setting replaced by its limit) are added
// where the engine runs.
func (j *job) warn() {
	r := j.res
	if s := infer.AdaptationSummary(r.Adapted); s != "" {
		r.Warn(j.pos(), "%s", s)
	}
	if !r.Status.HasNumbers() {
		return
	}
	if r.Skipped > 0 {
		r.Warn(j.pos(), "%d of %d factor updates were skipped (improper cavity or tilted approximation); skipped factors are not moment-matched",
			r.Skipped, r.Skipped+r.Updates)
	}
	samplingWarnings(r, j.pos())
	j.warnNonFinite()
	j.multimodalWarning()
	j.couplingWarning()
}

// couplingWarning warns on an EP result under family = factorized whose
// model has an exp(...) potential that couples several elements of its
// latent (compile.Couples; the default family refuses it at compile time):
// the moment schemes read the potential along each element's axis, so
// the marginals miss its mixed terms (compile/coupling.go has the numbers
// of a Gaussian coupling, where the exact marginals are known).
func (j *job) couplingWarning() {
	if j.spec.Method != infer.MethodEP || j.spec.Family != infer.FamilyFactorized {
		return
	}
	for _, b := range j.m.Blocks() {
		for _, f := range b.Batches {
			if compile.Couples(f.F, b.N) {
				j.warnOnce("factor %s at %s couples several elements of `%s`: the moment schemes read it along each element's axis (laplace: its diagonal curvature; gq, vq: points on the axes), so the marginals miss the coupling's mixed terms, beyond what the fully factorised family drops; compare with infer exact or infer mcmc",
					f.Label, j.m.Fset.Position(f.Pos), b.Name)
				return
			}
		}
	}
}

// warnNonFinite warns, at each predict statement, about the elements of
// its prediction that are not finite (an overflowing predictive: the
// expected count exp(m + v/2) at a far input); they are reported as
// missing (null in JSON, — in tables) and the rest of the result stands.
func (j *job) warnNonFinite() {
	for _, pr := range j.res.Predictions {
		var bad []int
		for i := range pr.Mean {
			if !finitePredicted(&pr, i) {
				bad = append(bad, i)
			}
		}
		if len(bad) == 0 {
			continue
		}
		pos := j.pos()
		for _, p := range j.m.Predicts {
			if p.Name == pr.Name && p.Pos.IsValid() {
				pos = j.m.Fset.Position(p.Pos).String()
			}
		}
		first := fmt.Sprintf("%s[%d]", pr.Name, bad[0])
		if len(bad) > 1 {
			first += fmt.Sprintf(" and %d more", len(bad)-1)
		}
		j.res.Warn(pos, "predict %s: %s not finite (the predictive overflows); shown as missing", pr.Name, first)
	}
}

// finitePredicted reports whether element i of every quantity of pr is finite.
func finitePredicted(pr *infer.Prediction, i int) bool {
	for _, q := range [][]float64{pr.Mean, pr.Var, pr.Prob, pr.MeanY} {
		if i < len(q) && (math.IsNaN(q[i]) || math.IsInf(q[i], 0)) {
			return false
		}
	}
	return true
}

// warnOnce adds a warning at the infer line unless the result has it
// already (a model with several blocks reaches the same check per block).
func (j *job) warnOnce(format string, args ...any) {
	w := infer.Warning{Pos: j.pos(), Message: fmt.Sprintf(format, args...)}
	if !slices.Contains(j.res.Warnings, w) {
		j.res.Warnings = append(j.res.Warnings, w)
	}
}

// pos is the position of the infer line, for warnings.
func (j *job) pos() string {
	if !j.spec.Pos.IsValid() {
		return ""
	}
	return j.m.Fset.Position(j.spec.Pos).String()
}

// samplingWarnings warns when any element's split R-hat exceeds MaxRHat or
// its effective sample size is below MinESS, naming the worst element.
func samplingWarnings(r *infer.Result, pos string) {
	worstR, worstE := extreme{v: MaxRHat}, extreme{v: MinESS}
	for _, v := range r.Variables.All() {
		for i, x := range v.RHat {
			if x > worstR.v || math.IsNaN(x) && !math.IsNaN(worstR.v) {
				worstR = extreme{v: x, at: infer.ElementName(v.Name, v.Shape, i)}
			}
		}
		for i, x := range v.ESS {
			if x < worstE.v || math.IsNaN(x) && !math.IsNaN(worstE.v) {
				worstE = extreme{v: x, at: infer.ElementName(v.Name, v.Shape, i)}
			}
		}
	}
	if worstR.at != "" {
		r.Warn(pos, "split R-hat %.4g > %g at %s: the chains disagree; run more samples (or burnin)", worstR.v, MaxRHat, worstR.at)
	}
	if worstE.at != "" {
		r.Warn(pos, "effective sample size %.4g < %d at %s: Monte Carlo error is large; run more samples", worstE.v, MinESS, worstE.at)
	}
}

// extreme is the worst value of a diagnostic and the element it is at.
type extreme struct {
	v  float64
	at string
}

// multimodalWarning warns on a converged EP result whose model has a factor
// that is not log-concave in its argument (a mixture, a gate, a Student-t
// likelihood or prior, a step with flip probability eps > 0, a selection
// by a discrete latent in a typed factor graph) or whose log-concavity is
// not known (a user potential exp(...) other than a convex loss): its posterior
// can have several modes, EP's Gaussian settles on one of them (the one the
// schedule reaches first, not necessarily the main one), and convergence
// says nothing about which. It costs nothing to compute; exact and mcmc are
// the check.
func (j *job) multimodalWarning() {
	if j.res.Status != infer.Converged || j.spec.Method != infer.MethodEP {
		return
	}
	if what, ok := nonLogConcave(j.m); ok {
		j.warnOnce("%s is not log-concave: the posterior can have several modes and a converged EP fixed point may sit at a minor one; compare with infer exact or infer mcmc", what)
	}
}

// nonLogConcave names the first factor of m that is not log-concave in its
// argument, with its position.
func nonLogConcave(m *compile.Model) (string, bool) {
	site := func(s graph.Site) (string, bool) {
		if mm, ok := s.Lik.(factor.Multimodal); ok && mm.Multimodal() {
			return fmt.Sprintf("factor %s at %s", s.Label, m.Fset.Position(s.Pos)), true
		}
		return "", false
	}
	for _, b := range m.Blocks() {
		if b.Prior.Kind.Family() == graph.StudentT {
			return fmt.Sprintf("the %s prior of `%s` at %s", b.Prior.Kind.Name(), b.Name, m.Fset.Position(b.Pos)), true
		}
		for _, s := range b.Sites {
			if w, ok := site(s); ok {
				return w, true
			}
		}
		for _, f := range b.Batches {
			if !logConcavePotential(f.F) {
				return fmt.Sprintf("factor %s at %s (a user potential, whose log-concavity fg cannot tell)", f.Label, m.Fset.Position(f.Pos)), true
			}
		}
	}
	if g := m.FactorGraph; g != nil {
		for _, gt := range g.Gates {
			return fmt.Sprintf("the gated factor %s at %s", gt.Label, m.Fset.Position(gt.Pos)), true
		}
		for s := range g.SharedSites() {
			if _, ok := site(*s); ok {
				sc := *s // the shared Site has no label: its first site's
				for i, a := range g.Sites() {
					if a.Shared == s {
						sc.Label = g.SiteLabel(i)
						break
					}
				}
				return site(sc)
			}
		}
	}
	if n := m.Net; n != nil {
		for _, f := range n.Factors {
			if selectsLatent(f.Edges) {
				return fmt.Sprintf("factor %s at %s (its parameters are selected by a discrete latent, a mixture)", f.Label, m.Fset.Position(f.Pos)), true
			}
		}
	}
	return "", false
}

// logConcavePotential reports whether a user potential exp(e(w)) is known
// to be log-concave: the loss mini-batch exp(−β Σ ℓ(y_k x_kᵀw)) with β ≥ 0
// and a convex loss ℓ. Of any other expression fg does not know.
func logConcavePotential(f graph.Potential) bool {
	b, ok := f.(*loss.Batch)
	return ok && b.Beta >= 0 && b.Loss.Convex()
}

// selectsLatent reports whether an edge is selected by a discrete variable
// among branches of which one at least is a latent (mu[z[i]] with mu
// latent): the factor is then a mixture over those latents. Branches of
// data only (a known transition matrix A[z[t−1]]) leave the posterior of
// the discrete chain exact under forward–backward.
func selectsLatent(edges []graph.Edge) bool {
	for _, e := range edges {
		if !e.Selected {
			continue
		}
		for _, b := range e.Branches {
			if !b.IsData() {
				return true
			}
		}
	}
	return false
}
