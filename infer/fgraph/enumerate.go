package fgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/mat"
)

// MaxConfigurations bounds the joint configurations of the discrete
// variables that Enumerate visits (2²⁰, about a second per continuous
// dimension on one core for small graphs).
const MaxConfigurations = infer.MaxConfigurations

// Configurations returns the number of joint configurations of the
// discrete variables, or −1 when it exceeds MaxConfigurations.
func (g *Graph) Configurations() int {
	n := 1
	for _, d := range g.disc {
		n *= len(d.logPrior)
		if n > MaxConfigurations {
			return -1
		}
	}
	return n
}

// Enumerate is the exact posterior of a conditionally linear-Gaussian graph:
// Gaussian factors and blocks, gates whose branches are all Gaussian
// (ep.Gaussian), and no other likelihood sites. Given a configuration z of
// the discrete variables the graph is linear-Gaussian, so its evidence
// p(y | z) and posterior N(x; μ_z, Σ_z) are closed form (gaussianJoint with
// the selected branches as Gaussian factors); the posterior is the mixture
//
//	p(x, z | y) = p(z) p(y | z) N(x; μ_z, Σ_z) / p(y),   p(y) = Σ_z p(z) p(y | z),
//
// summed over every configuration (at most MaxConfigurations) with
// log-sum-exp weights. The result has Status Done, Exact set, the mixture's
// means and variances, p(z_d = k) in Prob, and log p(y). ctx is checked
// before every configuration and between the blocks of each configuration's
// O(n³) factorisation (solveInformation).
func Enumerate(ctx context.Context, g *Graph) (*Result, error) {
	start := time.Now()
	if err := enumerable(g); err != nil {
		return nil, err
	}
	base := baseJoint(g)
	acc := newMixtureAcc(g)
	z := make([]int, len(g.disc))
	for {
		if ctx.Err() != nil {
			return &Result{Status: infer.Canceled, Message: "canceled"}, ctx.Err()
		}
		err := acc.add(g, base, z, ctx.Done())
		if errors.Is(err, openblas.ErrCanceled) {
			return &Result{Status: infer.Canceled, Message: "canceled"}, ctx.Err()
		}
		if err != nil {
			return &Result{Status: infer.Failed, Message: err.Error()}, nil
		}
		if !nextConfig(g, z) {
			break
		}
	}
	res := acc.result(g)
	res.Runtime = time.Since(start)
	return res, nil
}

// enumerable checks Enumerate's preconditions.
func enumerable(g *Graph) error {
	if err := g.Err(); err != nil {
		return err
	}
	if hasSites(g) {
		return fmt.Errorf("fgraph: exact enumeration needs a conditionally linear-Gaussian graph; %d likelihood sites are not Gaussian factors", len(g.liks))
	}
	for j, gt := range g.gates {
		for k, b := range gt.branches {
			if _, ok := b.Lik.(factor.Normal); !ok {
				return fmt.Errorf("fgraph: exact enumeration needs Gaussian branches; branch %d of gate %d is %s", k, j, b.Lik.Name())
			}
		}
	}
	if g.Configurations() < 0 {
		return fmt.Errorf("fgraph: exact enumeration visits at most %d discrete configurations", MaxConfigurations)
	}
	if g.n > MaxJoint {
		return fmt.Errorf("fgraph: exact enumeration needs a dense joint over %d variables (at most %d)", g.n, MaxJoint)
	}
	return nil
}

// nextConfig advances z to the next configuration (odometer order) and
// reports false after the last.
func nextConfig(g *Graph, z []int) bool {
	for d := range z {
		z[d]++
		if z[d] < len(g.disc[d].logPrior) {
			return true
		}
		z[d] = 0
	}
	return false
}

// joint is the information form Λ, h and constant r of the Gaussian
// factors (gaussianPart).
type joint struct {
	lam *mat.SymDense
	h   *mat.VecDense
	r   float64
}

func baseJoint(g *Graph) joint {
	lam, h, r := gaussianPart(g)
	return joint{lam, h, r}
}

// withBranches returns the base joint plus the Gaussian branches selected
// by z and the log prior of z.
func withBranches(g *Graph, base joint, z []int) joint {
	j := joint{mat.NewSymDense(g.n, nil), mat.NewVecDense(g.n, nil), base.r}
	j.lam.CopySym(base.lam)
	j.h.CopyVec(base.h)
	for d, k := range z {
		j.r += g.disc[d].logPrior[k]
	}
	for _, gt := range g.gates {
		b := gt.branches[z[gt.z]]
		s2 := b.Lik.(factor.Normal).Var
		d := gt.y - b.C
		j.r -= 0.5 * (d*d/s2 + math.Log(2*math.Pi*s2))
		for i, vi := range b.Vars {
			j.h.SetVec(vi, j.h.AtVec(vi)+b.Coefs[i]*d/s2)
			for e, vj := range b.Vars {
				if vj >= vi {
					j.lam.SetSym(vi, vj, j.lam.At(vi, vj)+b.Coefs[i]*b.Coefs[e]/s2)
				}
			}
		}
	}
	return j
}

// mixtureAcc accumulates the posterior mixture with weights relative to the
// largest log weight seen (rescaled when it grows).
type mixtureAcc struct {
	top    float64
	w      float64
	m1, m2 []float64
	prob   [][]float64
}

func newMixtureAcc(g *Graph) *mixtureAcc {
	a := &mixtureAcc{top: math.Inf(-1), m1: make([]float64, g.n), m2: make([]float64, g.n), prob: make([][]float64, len(g.disc))}
	for d, z := range g.disc {
		a.prob[d] = make([]float64, len(z.logPrior))
	}
	return a
}

// add adds configuration z: log weight log p(z) + log p(y | z). It returns
// openblas.ErrCanceled when done closes during the factorisation.
func (a *mixtureAcc) add(g *Graph, base joint, z []int, done <-chan struct{}) error {
	j := withBranches(g, base, z)
	if math.IsInf(j.r, -1) {
		return nil // a configuration of prior probability zero
	}
	mu, cov, logDet, err := solveInformation(j.lam, j.h, done)
	switch {
	case errors.Is(err, openblas.ErrCanceled):
		return err
	case errors.Is(err, openblas.ErrNotPositiveDefinite):
		return fmt.Errorf("configuration %v: the Gaussian factors do not define a proper joint", z)
	case err != nil:
		return fmt.Errorf("configuration %v: %w", z, err)
	}
	lw := 0.5*mat.Dot(j.h, mu) - 0.5*logDet + 0.5*float64(g.n)*math.Log(2*math.Pi) + j.r
	if lw > a.top {
		a.rescale(math.Exp(a.top - lw))
		a.top = lw
	}
	w := math.Exp(lw - a.top)
	a.w += w
	for i := range a.m1 {
		m := mu.AtVec(i)
		a.m1[i] += w * m
		a.m2[i] += w * (cov.At(i, i) + m*m)
	}
	for d, k := range z {
		a.prob[d][k] += w
	}
	return nil
}

func (a *mixtureAcc) rescale(f float64) {
	if math.IsInf(a.top, -1) {
		return
	}
	a.w *= f
	for i := range a.m1 {
		a.m1[i] *= f
		a.m2[i] *= f
	}
	for _, p := range a.prob {
		for k := range p {
			p[k] *= f
		}
	}
}

func (a *mixtureAcc) result(g *Graph) *Result {
	if !(a.w > 0) {
		return &Result{Status: infer.Failed, Message: "every discrete configuration has probability zero"}
	}
	res := &Result{Status: infer.Done, Exact: true, Mean: make([]float64, g.n), Var: make([]float64, g.n),
		Prob: a.prob, LogZ: a.top + math.Log(a.w), HasLogZ: true}
	for i := range res.Mean {
		res.Mean[i] = a.m1[i] / a.w
		res.Var[i] = a.m2[i]/a.w - res.Mean[i]*res.Mean[i]
	}
	for _, p := range res.Prob {
		for k := range p {
			p[k] /= a.w
		}
	}
	res.Iterations = 1
	return res
}
