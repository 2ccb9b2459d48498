package fgraph

import (
	"fmt"
	"math"
	"slices"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// MaxStates bounds the number of states of one discrete variable.
const MaxStates = infer.MaxStates

// discrete is a categorical variable z with a fixed prior p(z = k).
type discrete struct {
	logPrior []float64
	gates    []int32 // the gates z selects the branch of
}

// Branch is one branch of a gated factor: the likelihood
// Lik(y | Σ_i Coefs[i]·x[Vars[i]] + C). Vars may be empty: a branch on no
// continuous variable, such as the outlier density N(y; 0, 100) of a
// regression with outlier indicators. A Gaussian branch N(y; aᵀx + c, s²)
// is Lik = ep.Gaussian{Var: s²}.
type Branch struct {
	Lik   ep.Likelihood
	Vars  []int
	Coefs []float64
	C     float64
}

// gate is the gated factor (Minka & Winn 2008, "Gates", NIPS)
//
//	f(y, x, z) = Π_k f_k(y | a_kᵀx + c_k)^{[z = k]},
//
// whose selector z picks one of K branches, one per state of z.
type gate struct {
	z        int
	y        float64
	branches []Branch
	vars     []int   // the union of the branches' variables
	pos      [][]int // pos[k][i]: index in vars of branches[k].Vars[i]
}

// NumDiscrete returns the number of discrete variables.
func (g *Graph) NumDiscrete() int { return len(g.disc) }

// NumGates returns the number of gated factors.
func (g *Graph) NumGates() int { return len(g.gates) }

// AddDiscrete adds a discrete variable z ~ Categorical(prior) with
// K = len(prior) states (1 … MaxStates; prior non-negative, summing to one)
// and returns its index among the discrete variables.
func (g *Graph) AddDiscrete(prior []float64) int {
	d := len(g.disc)
	if g.err != nil {
		return d
	}
	if len(prior) == 0 || len(prior) > MaxStates {
		g.err = fmt.Errorf("fgraph: discrete variable %d has %d states, want 1 … %d", d, len(prior), MaxStates)
		return d
	}
	if err := factor.CheckProbabilities(prior); err != nil {
		g.err = fmt.Errorf("fgraph: discrete variable %d: %w", d, err)
		return d
	}
	lp := make([]float64, len(prior))
	for k, p := range prior {
		lp[k] = math.Log(p)
	}
	g.disc = append(g.disc, discrete{logPrior: lp})
	return d
}

// AddGate adds the gated factor p(y | a_zᵀx + c_z): discrete variable z
// (an index from AddDiscrete) selects branches[z], one branch per state.
func (g *Graph) AddGate(z int, y float64, branches []Branch) {
	if g.err != nil {
		return
	}
	j := len(g.gates)
	if z < 0 || z >= len(g.disc) {
		g.err = fmt.Errorf("fgraph: gate %d: discrete variable %d out of range [0, %d)", j, z, len(g.disc))
		return
	}
	if K := len(g.disc[z].logPrior); len(branches) != K {
		g.err = fmt.Errorf("fgraph: gate %d has %d branches; its selector has %d states", j, len(branches), K)
		return
	}
	if !finite(y) {
		g.err = fmt.Errorf("fgraph: gate %d: observation %g is not finite", j, y)
		return
	}
	gt := gate{z: z, y: y, branches: make([]Branch, len(branches)), pos: make([][]int, len(branches))}
	for k, b := range branches {
		if err := g.checkBranch(b, y); err != nil {
			g.err = fmt.Errorf("fgraph: gate %d, branch %d: %w", j, k, err)
			return
		}
		gt.branches[k] = Branch{Lik: b.Lik, Vars: slices.Clone(b.Vars), Coefs: slices.Clone(b.Coefs), C: b.C}
		for _, v := range b.Vars {
			i := slices.Index(gt.vars, v)
			if i < 0 {
				i = len(gt.vars)
				gt.vars = append(gt.vars, v)
			}
			gt.pos[k] = append(gt.pos[k], i)
		}
	}
	g.disc[z].gates = append(g.disc[z].gates, int32(j))
	g.gates = append(g.gates, gt)
}

// checkBranch validates one branch of a gate.
func (g *Graph) checkBranch(b Branch, y float64) error {
	switch {
	case b.Lik == nil:
		return fmt.Errorf("no likelihood")
	case len(b.Vars) != len(b.Coefs):
		return fmt.Errorf("%d variables and %d coefficients", len(b.Vars), len(b.Coefs))
	case !finite(b.C):
		return fmt.Errorf("constant %g is not finite", b.C)
	}
	if err := b.Lik.CheckY(y); err != nil {
		return err
	}
	for i, v := range b.Vars {
		switch {
		case v < 0 || v >= g.n:
			return fmt.Errorf("variable %d out of range [0, %d)", v, g.n)
		case !finite(b.Coefs[i]) || b.Coefs[i] == 0:
			return fmt.Errorf("coefficient %g of variable %d, want finite and non-zero", b.Coefs[i], v)
		case slices.Index(b.Vars[:i], v) >= 0:
			return fmt.Errorf("variable %d appears twice (add its coefficients)", v)
		}
	}
	return nil
}

// gateDegree returns, per continuous variable, the number of gates on it.
func gateDegree(g *Graph) []int32 {
	d := make([]int32, g.n)
	for _, gt := range g.gates {
		for _, v := range gt.vars {
			d[v]++
		}
	}
	return d
}

// gatedSettings refuses what a graph with gates does not support: family =
// full (a gate's tilted distribution is a mixture over several
// projections, which the joint-Gaussian EP of infer/ep has no site for)
// and the residual schedule. Relaxed KL runs under family = factorized
// (relaxed.go; messagePower checks the rest).
func gatedSettings(g *Graph, s Settings) error {
	switch {
	case len(g.gates) == 0:
		return nil
	case s.Family == Full:
		return fmt.Errorf("fgraph: a graph with gated factors (discrete latents that select parameters) needs family = factorized")
	case s.Schedule == infer.Residual:
		return fmt.Errorf("fgraph: the residual schedule does not support gated factors (sequential, parallel)")
	}
	return nil
}
