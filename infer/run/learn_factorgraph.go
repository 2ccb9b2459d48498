package run

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
)

// Learning on a factor graph (a GP with a latent bias, a random walk's
// process variance, a hierarchy with a GP part) maximises the same
// evidence as on Gaussian blocks, by viewing the graph as one block.
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
// graph at θ (learnBuilder.deriv: the model compiled again at θ ± h, the
// joint prior propagated in topological order by fgraph). The evidence is
// the one ep reports on the graph: on a forest infer/fgraph's forward–
// backward schedule has joint EP's fixed point, and its Bethe energy is
// joint EP's log Z there; elsewhere fgraph runs this very block
// (runJoint). A Gaussian observation enters as an EP site whose tilted
// distribution is exact, so its site is the likelihood itself and its
// term of log Z_EP the exact one.
//
// The cost is that of the dense joint: O(n²) memory and O(n³) time per
// evaluation for n variables; compile refuses learn on a factor graph of
// more than infer.MaxJoint variables, and on one with gated factors
// (their EP is factorised over (x, z), outside this block), at the learn
// statement.

// learnView is the model learn works on: m itself when it compiled to
// Gaussian blocks; for a factor graph a shallow copy whose Blocks hold the
// joint block (jointLearnBlock). Its other fields are m's, so that
// LearnFunc compiles it again at other values.
func learnView(m *compile.Model) (*compile.Model, error) {
	fg := m.FactorGraph
	if fg == nil {
		return m, nil
	}
	if len(fg.Gates) > 0 {
		return nil, fmt.Errorf("learn: %s is a gated factor (a discrete latent selects its branch), whose EP has no joint-Gaussian evidence to differentiate", fg.Gates[0].Label)
	}
	b, err := jointLearnBlock(m, fg)
	if err != nil {
		return nil, err
	}
	out := *m
	out.Blocks = []*compile.Block{b}
	return &out, nil
}

// jointLearnBlock is fg as one Gaussian block with dense projections
// (jointBlock's sparse projections written out): when some site has a
// constant term c, one more coordinate with prior mean 1 and variance 0
// carries it, as in fgraph's dense joint (a zero-variance coordinate
// changes neither the evidence nor its gradient).
func jointLearnBlock(m *compile.Model, fg *compile.FactorGraph) (*compile.Block, error) {
	b, err := jointBlock(m, fg)
	if err != nil {
		return nil, err
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
