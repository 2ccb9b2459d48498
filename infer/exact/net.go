package exact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/netjoint"
)

// Exact inference on a graph.Net (models with Beta, Gamma, inverse-Gamma,
// Dirichlet and discrete latents, discrete chains). The posterior is
//
//	p(z, θ | D) = Π_f f(z, θ) / Z,   Z = Σ_z ∫ Π_f f(z, θ) dθ,
//
// computed on each connected component of the Net (net_parts.go) by
// whichever of these applies, chosen by PlanNet:
//
//   - forward–backward, when every latent is discrete and the discrete
//     variables form chains (each factor on at most two consecutive ones):
//     O(T K²) in log space (Rabiner 1989, §III.A; Bishop 2006, §13.2.2);
//   - enumeration of the discrete configurations (at most MaxNetConfigs),
//     each with the evidence of the continuous latents in closed form where
//     the factors are conjugate given the configuration (netjoint's fits:
//     a Beta, Gamma, inverse-Gamma or Dirichlet latent with conjugate
//     likelihoods, jointly Gaussian latents with linear-Gaussian factors);
//     the posterior is then a mixture over configurations whose moments are
//     reported;
//   - adaptive quadrature (Run's "quad") over at most MaxQuadDim
//     unconstrained coordinates of the continuous latents that are not
//     conjugate (log for (0, ∞), logit for (0, 1), additive logistic for
//     the simplex), the others integrated in closed form at every node.

// MaxNetConfigs bounds the discrete configurations that enumeration visits.
const MaxNetConfigs = 1 << 20

// maxQuadConfigs bounds the configurations when each needs a quadrature.
const maxQuadConfigs = 256

// NetSettings configure RunNet.
type NetSettings struct {
	// Tol is the target error of the quadrature (default infer.NetQuadTol; see Settings.Tol).
	Tol float64
	// MaxEval bounds the evaluations of each quadrature (default 4e6).
	MaxEval int
	// Progress, when non-nil, is called with the configurations or
	// quadratures done and their total.
	Progress func(done, total int)
}

// NetMarginal is the posterior summary of one variable of the Net.
type NetMarginal struct {
	// Mean and Var per coordinate of a continuous variable (K for a
	// Dirichlet); nil for a discrete one.
	Mean, Var []float64
	// Probs are the marginal probabilities of a discrete variable's states.
	Probs []float64
	// MeanInv is E[1/θ] of a Gamma or inverse Gamma variable (+Inf when
	// it diverges), NaN for the other families.
	MeanInv float64
	// Nat and Params are the natural and the usual parameters of the
	// variable's family (families.For) when the posterior is in the family
	// (a single conjugate update), else nil.
	Nat, Params []float64
}

// NetResult is the outcome of RunNet.
type NetResult struct {
	Status infer.Status
	infer.Stats
	// Algorithm says how: "forward-backward", "closed form",
	// "enumeration", "quadrature" or "enumeration × quadrature".
	Algorithm string
	LogZ      float64
	Vars      []NetMarginal // by Net variable
	// ErrEstimate is the largest error estimate of the quadratures (0 when
	// there was none).
	ErrEstimate float64
	Message     string
}

// partPlan is how RunNet computes the posterior of one connected
// component of a Net.
type partPlan struct {
	j       *netjoint.Joint
	disc    []int  // discrete variables
	quad    []int  // continuous variables integrated numerically
	free    []bool // continuous variables integrated in closed form
	configs int
	chain   *chainPlan // forward–backward when non-nil
	// the free Gaussian variables in components integrated jointly:
	// comp[v] is v's component (−1 for others), pos[v] its place in it
	comps     []gaussComp
	comp, pos []int
	// probed are the fits of the planning probes when no variable needs
	// quadrature: enumeration's cache, filled
	probed []local
}

// planPart decides how to compute the posterior of n, one connected
// component of a Net, or says why it cannot: no closed form and more than
// MaxQuadDim coordinates to integrate numerically, or too many discrete
// configurations.
func planPart(n *graph.Net) (*partPlan, error) {
	j, err := netjoint.New(n)
	if err != nil {
		return nil, err
	}
	p := &partPlan{j: j, configs: 1, free: make([]bool, len(n.Vars))}
	var cont []int
	for v, nv := range n.Vars {
		if nv.Family == graph.Discrete {
			p.disc = append(p.disc, v)
			continue
		}
		cont = append(cont, v)
	}
	if len(cont) == 0 {
		if c, ok := planChain(j, p.disc); ok {
			p.chain = c
			return p, nil
		}
	}
	for _, v := range p.disc {
		if p.configs > MaxNetConfigs/n.Vars[v].Dim {
			return nil, fmt.Errorf("exact: %s discrete configurations are more than %d to enumerate and the discrete variables do not form a chain; use mcmc", configCount(n, p.disc), MaxNetConfigs)
		}
		p.configs *= n.Vars[v].Dim
	}
	if len(cont) == 0 {
		return p, nil
	}
	if err := p.chooseQuad(cont); err != nil {
		return nil, err
	}
	if len(p.quad) > 0 && p.configs > maxQuadConfigs {
		return nil, fmt.Errorf("exact: %d discrete configurations would each need a quadrature over %s (at most %d); use mcmc", p.configs, p.names(p.quad), maxQuadConfigs)
	}
	return p, nil
}

func configCount(n *graph.Net, disc []int) string {
	var parts []string
	for _, v := range disc {
		parts = append(parts, fmt.Sprint(n.Vars[v].Dim))
	}
	if len(parts) > 6 {
		return fmt.Sprintf("%s×…×%s (%d variables)", parts[0], parts[len(parts)-1], len(parts))
	}
	return strings.Join(parts, "×")
}

func (p *partPlan) names(vs []int) string {
	var s []string
	for _, v := range vs {
		s = append(s, p.j.Net.Vars[v].Name)
	}
	return strings.Join(s, ", ")
}

// Algorithm names the computation the plan makes.
func (p *partPlan) Algorithm() string {
	switch {
	case p.chain != nil:
		return "forward-backward"
	case len(p.quad) > 0 && p.configs > 1:
		return "enumeration × quadrature"
	case len(p.quad) > 0:
		return "quadrature"
	case p.configs > 1:
		return "enumeration"
	}
	return "closed form"
}

// RunNet computes the exact posterior of n's latents and its log evidence.
func RunNet(ctx context.Context, n *graph.Net, s NetSettings) (*NetResult, error) {
	p, err := PlanNet(n)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, s)
}

// Run carries out the plan of one component.
func (p *partPlan) Run(ctx context.Context, s NetSettings) (res *NetResult, err error) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("exact: internal error: %v", r)
		}
		if res != nil {
			res.Runtime = time.Since(start)
		}
	}()
	if s.Tol <= 0 {
		s.Tol = infer.NetQuadTol
	}
	res = &NetResult{Status: infer.Done, Algorithm: p.Algorithm()}
	if p.chain != nil {
		err = p.chain.run(ctx, p.j, res)
	} else {
		err = p.enumerate(ctx, s, res)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			res.Status, res.Message = infer.Canceled, err.Error()
			return res, err
		}
		return nil, err
	}
	return res, nil
}
