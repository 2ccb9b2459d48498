package run

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/fgraph"
	"github.com/fg-infer/fg/infer/learn"
)

// Learning on a factor graph (a GP with a latent bias, a random walk's
// process variance, an AR coefficient or drift in a conditional's mean, a
// hierarchy with a GP part) maximises the same
// evidence as on Gaussian blocks, by viewing the graph as one block — or,
// on a chain or tree, on the messages of ep's forward–backward passes
// (forestView, below).
//
// Under family = full (ep's default on a factor graph) EP approximates the
// posterior by one joint Gaussian: the prior factors (priors, conditionals
// x_t ~ N(a x_{t−1} + b, q), gp/mvnormal/normal dense blocks) multiply to
// the joint Gaussian prior N(x; μ₀, Σ₀) of the variables (directed, so it
// is proper with normaliser 1), and every likelihood, a Gaussian
// observation included, is a site on a projection aᵀx + c of it. That is
// exactly the Gaussian block infer/ep and infer/learn work on, with
// K = Σ₀, so
//
//	∂ log Z_EP/∂θ = ½ tr(R ∂K_f/∂θ) + Σ_i ∂ log Ẑ_i/∂θ,   K_f = A Σ₀ Aᵀ,
//
// with R from the converged sites (infer/learn.Gradient; the stationarity
// of EP's free energy in the sites, Seeger 2005, Rasmussen & Williams
// 2006 §5.5.2), and ∂Σ₀/∂θ the derivative of the prior of the factor
// graph at θ, propagated in topological order beside the prior itself
// (learn_jets_joint.go; a number without a jet by learnBuilder.deriv:
// the factor graph at θ ± h, its numbers set in place by
// compile.LearnFunc without compiling it again). A param in a
// conditional's mean moves μ₀ too, adding αᵀA ∂μ₀/∂θ (learn.Block.DMean). The evidence is
// the one ep reports on the graph: on a forest infer/fgraph's forward–
// backward schedule has joint EP's fixed point, and its Bethe energy is
// joint EP's log Z there; elsewhere fgraph runs this very block
// (runJoint). A Gaussian observation enters as an EP site whose tilted
// distribution is exact, so its site is the likelihood itself and its
// term of log Z_EP the exact one.
//
// The cost is that of the dense joint: O(n²) memory and O(n³) time per
// evaluation for n variables. A forest without dense blocks (a random
// walk, a hierarchy) is learned on its messages instead, in O(n) per
// evaluation at any size (forestEvidence); compile refuses learn on
// another factor graph of more than infer.MaxJoint variables, and on one
// with gated factors (their EP is factorised over (x, z), outside both),
// at the learn statement.

// learnView is the model learn works on: m itself when it compiled to
// Gaussian blocks or to a forest learned on its messages (forestView);
// for another factor graph a shallow copy whose factor graph is the joint
// block (jointLearnBlock) alone. Its other fields are m's, so that
// LearnFunc compiles it again at other values.
func learnView(m *compile.Model) (*compile.Model, error) { return learnViewOf(m, nil) }

// jointView reports whether m's learn view is its joint block.
func jointView(m *compile.Model) bool {
	fg := m.FactorGraph
	return fg != nil && m.Blocks() == nil && !forestView(fg)
}

// learnViewOf is learnView with the joint block's prior jt's when jt is
// non-nil (computed with its tangents: jointPriorTangents).
func learnViewOf(m *compile.Model, jt *jointTangents) (*compile.Model, error) {
	fg := m.FactorGraph
	if !jointView(m) {
		return m, nil
	}
	if len(fg.Gates) > 0 {
		return nil, fmt.Errorf("learn: %s is a gated factor (a discrete latent selects its branch), whose EP has no joint-Gaussian evidence to differentiate", fg.Gates[0].Label)
	}
	b, err := jointLearnBlock(m, fg, jt)
	if err != nil {
		return nil, err
	}
	out := *m
	out.FactorGraph = graph.BlockGraph(b)
	return &out, nil
}

// jointLearnBlock is fg as one Gaussian block with dense projections
// (jointBlock's sparse projections written out): when some site has a
// constant term c, one more coordinate with prior mean 1 and variance 0
// carries it, as in fgraph's dense joint (a zero-variance coordinate
// changes neither the evidence nor its gradient). Its prior is jt's when
// that was computed (with its tangents), else fg.JointPrior.
func jointLearnBlock(m *compile.Model, fg *graph.FactorGraph, jt *jointTangents) (*graph.Block, error) {
	var b *graph.Block
	if jt != nil && jt.cov != nil {
		b = jointBlockOf(m, fg, jt.mean, jt.cov)
	} else {
		var err error
		if b, _, err = jointBlock(m, fg); err != nil {
			return nil, err
		}
	}
	n := b.N
	for _, s := range b.Sites {
		if s.Offset != 0 {
			n = b.N + 1
			break
		}
	}
	if n > b.N {
		cov := mat.NewSymDense(n, nil)
		cov.SliceSym(0, b.N).(*mat.SymDense).CopySym(b.Prior.Cov)
		b.Prior.Cov = cov
		b.Prior.Mean = append(append([]float64(nil), b.Prior.Mean...), 1)
	}
	for i := range b.Sites {
		s := &b.Sites[i]
		a := make([]float64, n)
		for k, v := range s.Vars {
			a[v] = s.Proj[k]
		}
		if s.Offset != 0 {
			a[b.N] = s.Offset
		}
		s.Proj, s.Vars, s.Offset, s.Index = a, nil, 0, -1
	}
	b.N = n
	return b, nil
}

// onMessages reports whether the learn view m is a factor graph learned
// on its messages (forestView): a factor graph that is not Gaussian blocks.
func onMessages(m *compile.Model) bool { return m.FactorGraph != nil && m.Blocks() == nil }

// forestView reports whether fg is learned on its messages: a forest
// (ep's forward–backward schedule) with no dense block and no gate.
func forestView(fg *graph.FactorGraph) bool {
	return len(fg.Dense) == 0 && len(fg.Gates) == 0 && fg.Forest()
}

// forestVars are the variances of the linear-Gaussian factors of fg's
// infer/fgraph graph (graphOf), in its order: the priors and
// conditionals, then the Gaussian observations.
func forestVars(fg *graph.FactorGraph) []float64 {
	out := make([]float64, 0, fg.NumGaussians()+fg.NumSites())
	for _, f := range fg.Gaussians() {
		out = append(out, f.Var)
	}
	for _, s := range fg.Sites() {
		if n, ok := s.Shared.Lik.(factor.Normal); ok {
			out = append(out, n.Var)
		}
	}
	return out
}

// forestAffs are the means of the linear-Gaussian factors of fg's
// infer/fgraph graph (graphOf), in its order: each factor's coefficients
// (in its variables' order) then its constant — the layout of
// fgraph.Result.AffGrad.
func forestAffs(fg *graph.FactorGraph) []float64 {
	var out []float64
	for _, f := range fg.Gaussians() {
		out = append(append(out, f.Aff.Coefs...), f.Aff.Const)
	}
	for _, s := range fg.Sites() {
		if _, ok := s.Shared.Lik.(factor.Normal); ok {
			out = append(append(out, s.Aff.Coefs...), s.Aff.Const)
		}
	}
	return out
}

// forestLiks are the likelihood parameters of fg's EP sites (the sites
// graphOf does not make linear-Gaussian factors), in its order: a step's
// eps, 0 for a site without one.
func forestLiks(fg *graph.FactorGraph) []float64 {
	var out []float64
	for _, s := range fg.Sites() {
		if _, ok := s.Shared.Lik.(factor.Normal); ok {
			continue
		}
		var v float64
		if g, ok := s.Shared.Lik.(factor.ParamGrad); ok {
			_, v, _, _ = g.LearnParam()
		}
		out = append(out, v)
	}
	return out
}

// buildForest is build on a forest view: one block whose Evidence runs
// infer/fgraph at x, with the derivatives of the factors' variances.
func (lb *learnBuilder) buildForest(x []float64) ([]*learn.Block, error) {
	mx, err := lb.compileAt(x, false)
	if err != nil {
		return nil, err
	}
	ds, err := lb.derivs(x, snapOf(mx))
	if err != nil {
		return nil, err
	}
	if lb.f.InPlace(mx) && lb.moved { // the derivatives moved the graph set in place: back to x
		if mx, err = lb.compileAt(x, false); err != nil {
			return nil, err
		}
	}
	g, sites, err := graphOf(mx.FactorGraph, false, siteLik)
	if err != nil {
		return nil, err
	}
	ev := &forestEvidence{g: g, dvar: make([][]float64, len(x)), daff: make([][]float64, len(x)), dlik: make([][]float64, len(x))}
	for k, d := range ds {
		ev.dvar[k] = d.gvar
		if nonzero(d.gaff) {
			ev.daff[k] = d.gaff
		}
		if nonzero(d.glik) {
			ev.dlik[k] = d.glik
		}
	}
	for _, s := range sites {
		lik, err := siteLik(s)
		if err != nil {
			return nil, err
		}
		ev.liks, ev.y = append(ev.liks, lik), append(ev.y, s.Y)
	}
	return []*learn.Block{{Evidence: ev}}, nil
}

// forestEvidence is learn.Evidence on a forest: ep's forward–backward
// passes (family = full, kl) and
//
//	∂ log Z/∂x_k = Σ_f [(∂σ²_f/∂x_k) ∂ log Z/∂σ²_f + Σ_j (∂a_fj/∂x_k) ∂ log Z/∂a_fj + (∂c_f/∂x_k) ∂ log Z/∂c_f]
//	             + Σ_i (∂θ_i/∂x_k) ∂ log Ẑ_i/∂θ_i
//
// over its linear-Gaussian factors f = N(y_f; a_fᵀx + c_f, σ²_f)
// (fgraph.Result.VarGrad, AffGrad: an AR coefficient or a drift in a
// conditional's mean is an a_fj or a c_f) and its EP sites i with a
// likelihood parameter θ_i, each at its cavity (fgraph.Result.CavMean,
// CavVar; learn.LikParamGrad).
type forestEvidence struct {
	g    *fgraph.Graph
	dvar [][]float64 // per learned param: ∂σ²_f/∂x_k, in forestVars' order
	daff [][]float64 // per learned param: ∂(a_f, c_f)/∂x_k, in forestAffs' order (nil: none)
	dlik [][]float64 // per learned param: ∂θ_i/∂x_k, in forestLiks' order (nil: none)
	liks []ep.Likelihood
	y    []float64
}

func (e *forestEvidence) Evaluate(ctx context.Context, tol, damping float64) (float64, []float64, int, error) {
	s := fgraph.Settings{Settings: infer.Settings{Tol: tol, Damping: damping, MaxIter: infer.DefaultLearnEPMaxIter}, Family: fgraph.Full, VarGrad: true}
	res, err := fgraph.Run(ctx, e.g, s)
	if err != nil {
		return 0, nil, 0, err
	}
	if res.Status != infer.Converged || !res.HasLogZ || res.VarGrad == nil {
		return 0, nil, res.Iterations, fmt.Errorf("ep on the factor graph ended %v without an evidence gradient: %s", res.Status, res.Message)
	}
	grad := make([]float64, len(e.dvar))
	for k, d := range e.dvar {
		if len(d) != len(res.VarGrad) {
			return 0, nil, 0, fmt.Errorf("learn: %d variance derivatives for %d linear-Gaussian factors", len(d), len(res.VarGrad))
		}
		grad[k] = floats.Dot(d, res.VarGrad)
		if da := e.daff[k]; da != nil {
			if len(da) != len(res.AffGrad) {
				return 0, nil, 0, fmt.Errorf("learn: %d mean derivatives for %d coefficients and constants", len(da), len(res.AffGrad))
			}
			grad[k] += floats.Dot(da, res.AffGrad)
		}
		for i, dt := range e.dlik[k] {
			if dt == 0 {
				continue
			}
			if len(res.CavMean) != len(e.liks) {
				return 0, nil, 0, fmt.Errorf("learn: %d site cavities for %d sites", len(res.CavMean), len(e.liks))
			}
			g, err := learn.LikParamGrad(e.liks[i], e.y[i], res.CavMean[i], res.CavVar[i])
			if err != nil {
				return 0, nil, 0, err
			}
			grad[k] += dt * g
		}
	}
	return res.LogZ, grad, res.Iterations, nil
}

// sameGraph reports what differs between two compilations of a factor
// graph beyond the variances and means of its linear-Gaussian factors
// (the coefficients and constant of a prior or conditional, not its
// variables) and its sites' likelihood parameters.
func sameGraph(a, b *graph.FactorGraph) error {
	if b == nil || a.NumVars != b.NumVars || a.NumGaussians() != b.NumGaussians() || a.NumSites() != b.NumSites() || len(a.Dense) != len(b.Dense) {
		return fmt.Errorf("changes the variables or factors of the factor graph")
	}
	same := func(x, y graph.Form) bool {
		return slices.Equal(x.Vars, y.Vars) && equalFloats(x.Coefs, y.Coefs) && x.Const == y.Const
	}
	for i, f := range a.Gaussians() {
		if !slices.Equal(f.Aff.Vars, b.Gaussian(i).Aff.Vars) {
			return fmt.Errorf("changes the variables of the mean of %s (a learned coefficient of exactly 0 drops its variable)", a.GaussianLabel(i))
		}
	}
	for i, s := range a.Sites() {
		t := b.Site(i)
		if !graph.SameKind(s.Shared.Lik, t.Shared.Lik) || s.Y != t.Y || !same(s.Aff, t.Aff) {
			return fmt.Errorf("changes the data or projection of %s", a.SiteLabel(i))
		}
	}
	return nil
}
