package run

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/learn"
	"github.com/fg-infer/fg/infer/mp"
)

// Learning on a typed factor graph (compile.Model.Net: Beta, Gamma,
// inverse Gamma, Dirichlet and discrete latents) maximises the evidence
// that the model's ep line reports — log Z_EP under kl, power EP's log Z
// under alpha(a), the ELBO under alpha(0) (variational message passing) —
// of infer/mp's fixed point. A learned param reaches the Net only as data
// of its factors' edges (a beta prior's pseudo-counts, a gamma prior's
// shape or rate, a known variance, a categorical's probabilities) or as a
// coefficient or constant of an affine edge over Gaussian variables
// (normal(b * mu + c, 1 / tau)); compile refuses it anywhere else, at the
// place it is used. So
//
//	∂ log Z/∂θ = Σ_f (∂ log Z/∂d_f) · ∂d_f/∂θ
//
// over the factors f whose numbers d_f — data (graph.NetFactor.Data),
// then coefficients and constants (NetFactor.Affine) — change with θ. The first factor is the derivative of f's own term of the
// evidence at the converged messages, E_{p̃_f}[∂ log f/∂d] (EP's tilted
// distribution of f, q under VMP; mp.RunGrad explains why the messages may
// be held fixed); the second is exact, by forward-mode AD on the recorded
// statements' arguments (compile.LearnFunc.NetTangents, netJetDerivs) — or,
// for a number reached through an expression without jets, a central
// difference of the Net's numbers at θ ± h (learnBuilder.deriv: the
// recorded statements' edges evaluated again and set in place by
// compile.LearnFunc) — closed-form numbers, not the fixed point. Without an ep line
// (infer exact or mcmc only) learning maximises the kl evidence log Z_EP;
// with several, the first one's.

// netLearnOptions are the infer/mp options of the evidence learn
// maximises: those of the model's first ep line, else kl.
func netLearnOptions(m *compile.Model) mp.Options {
	opt := mp.Options{Alpha: 1}
	for _, s := range m.Infers {
		if s.Method != infer.MethodEP {
			continue
		}
		if a, ok := s.Settings.Divergence.(infer.Alpha); ok {
			opt.Alpha = a.A
		}
		opt.Damping, opt.FixedDamping, opt.MaxIter = s.Settings.Damping, s.Settings.FixedDamping, s.Settings.MaxIter
		break
	}
	return opt
}

// buildNet returns the Net at x as one infer/learn Evidence block, with
// the derivatives of its factors' data in every learned param.
func (lb *learnBuilder) buildNet(x []float64) ([]*learn.Block, error) {
	mx, err := lb.compileAt(x, true)
	if err != nil {
		return nil, err
	}
	ds, err := lb.derivs(x, snapOf(mx))
	if err != nil {
		return nil, err
	}
	if lb.f.InPlace(mx) && lb.moved { // the derivatives moved the Net set in place: back to x
		if mx, err = lb.compileAt(x, true); err != nil {
			return nil, err
		}
	}
	ts := make([][]mp.Tangent, len(x))
	for k, d := range ds {
		for fi, df := range d.net {
			nd := len(mx.Net.Factors[fi].Data())
			if nonzero(df) {
				tg := mp.Tangent{Factor: fi}
				if nonzero(df[:nd]) {
					tg.D = df[:nd]
				}
				if nonzero(df[nd:]) {
					tg.A = df[nd:]
				}
				ts[k] = append(ts[k], tg)
			}
		}
	}
	return []*learn.Block{{Evidence: &netEvidence{net: mx.Net, opt: netLearnOptions(lb.m), tangents: ts}}}, nil
}

// netEvidence is a Net's evidence and its gradient for infer/learn.
type netEvidence struct {
	net      *graph.Net
	opt      mp.Options
	tangents [][]mp.Tangent
}

// Evaluate runs infer/mp to tolerance tol, with the ep line's damping
// times damping, and returns its evidence and gradient; a run that does
// not converge is an error.
func (n *netEvidence) Evaluate(ctx context.Context, tol, damping float64) (float64, []float64, int, error) {
	opt := n.opt
	opt.Tol = tol
	if opt.Damping == 0 {
		opt.Damping = 1
	}
	opt.Damping *= damping
	res, grad, err := mp.RunGrad(ctx, n.net, opt, n.tangents)
	if err != nil {
		return 0, nil, 0, err
	}
	if res.Status != infer.Converged || grad == nil {
		return 0, nil, res.Iterations, fmt.Errorf("%s did not converge (%s after %d sweeps%s)", evidenceName(opt), res.Status, res.Iterations, colonMsg(res.Message))
	}
	return res.LogEvidence, grad, res.Iterations, nil
}

func evidenceName(opt mp.Options) string {
	switch {
	case opt.VMP():
		return "variational message passing"
	case opt.Alpha != 1:
		return fmt.Sprintf("power EP (alpha %g)", opt.Alpha)
	}
	return "EP"
}

func colonMsg(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// netData lists every factor's data numbers followed by the coefficients
// and constants of its edges over variables (graph.NetFactor.Data, Affine).
func netData(n *graph.Net) [][]float64 {
	out := make([][]float64, len(n.Factors))
	for i := range n.Factors {
		f := &n.Factors[i]
		out[i] = append(f.Data(), f.Affine()...)
	}
	return out
}

// combineNet is Σ_j c_j s_j.net (see combine).
func combineNet(ss []snapshot, c []float64) [][]float64 {
	out := make([][]float64, len(ss[0].net))
	for i := range out {
		out[i] = make([]float64, len(ss[0].net[i]))
		for j, s := range ss {
			axpy(out[i], c[j], s.net[i])
		}
	}
	return out
}

// sameNet reports what differs between two compilations of a Net beyond
// the data numbers learn may change.
func sameNet(a, b *graph.Net) error {
	if b == nil || len(a.Factors) != len(b.Factors) || len(a.Vars) != len(b.Vars) {
		return fmt.Errorf("changes its variables or factors")
	}
	for i := range a.Factors {
		x, y := &a.Factors[i], &b.Factors[i]
		if !reflect.DeepEqual(x.Kind, y.Kind) || len(x.Edges) != len(y.Edges) || len(x.Data()) != len(y.Data()) {
			return fmt.Errorf("changes the factor %s", x.Label)
		}
		if !equalFloats(x.Y, y.Y) {
			return fmt.Errorf("changes the observation of %s", x.Label)
		}
		for j := range x.Edges {
			if !sameEdgeVars(x.Edges[j], y.Edges[j]) {
				return fmt.Errorf("changes the variables of %s of %s at %s (a learned coefficient of exactly 0 drops its variable)", x.Edges[j].Name, x.Label, a.Fset.Position(x.Pos))
			}
		}
	}
	return nil
}

// sameEdgeVars reports whether two edges are over the same variables (in
// every branch), whatever their coefficients.
func sameEdgeVars(a, b graph.Edge) bool {
	if !slices.Equal(a.Vars, b.Vars) || a.Selected != b.Selected || a.Sel != b.Sel || len(a.Branches) != len(b.Branches) {
		return false
	}
	for k := range a.Branches {
		if !sameEdgeVars(a.Branches[k], b.Branches[k]) {
			return false
		}
	}
	return true
}
