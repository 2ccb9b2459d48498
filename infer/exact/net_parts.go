package exact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Plan is how RunNet computes a Net's posterior. The Net's connected
// components (variables joined by a factor, through any branch of a
// selection) are independent a posteriori — the posterior factorises over
// them and the evidence is the product of theirs — so each gets its own
// partPlan: J groups that each need a one-dimensional quadrature, or two
// mixtures of 2¹² configurations each, are then within reach.
type Plan struct {
	net   *graph.Net
	parts []*partPlan
	vars  [][]int // per part: the Net indices of its variables
}

// PlanNet plans every component of n, or says why one cannot be computed.
func PlanNet(n *graph.Net) (*Plan, error) {
	if len(n.Vars) == 0 {
		return nil, errors.New("exact: the model has no latent variables")
	}
	pl := &Plan{net: n}
	vars, factors := components(n)
	for c := range vars {
		sub := n
		if len(vars) > 1 {
			sub = subNet(n, vars[c], factors[c])
		}
		p, err := planPart(sub)
		if err != nil {
			return nil, err
		}
		pl.parts, pl.vars = append(pl.parts, p), append(pl.vars, vars[c])
	}
	return pl, nil
}

// components are n's connected components (graph.Net's Components) and
// each one's factors (a factor on no variable goes to the first).
func components(n *graph.Net) (vars, factors [][]int) {
	vars = n.Components(func(int) bool { return true })
	comp := make([]int, len(n.Vars))
	for c, vs := range vars {
		for _, v := range vs {
			comp[v] = c
		}
	}
	factors = make([][]int, len(vars))
	for fi := range n.Factors {
		c := 0
		for _, e := range n.Factors[fi].Edges {
			if vs := e.VarsOf(); len(vs) > 0 {
				c = comp[vs[0]]
				break
			}
		}
		factors[c] = append(factors[c], fi)
	}
	return vars, factors
}

// subNet is the Net of the variables vars and factors fs of n, its
// variables renumbered in the order of vars.
func subNet(n *graph.Net, vars, fs []int) *graph.Net {
	index := make(map[int]int, len(vars))
	sub := &graph.Net{Fset: n.Fset}
	for _, v := range vars {
		index[v] = sub.AddVar(n.Vars[v])
	}
	for _, fi := range fs {
		f := n.Factors[fi]
		f.Edges = slices.Clone(f.Edges)
		for k := range f.Edges {
			f.Edges[k] = renumber(f.Edges[k], index)
		}
		sub.AddFactor(f)
	}
	return sub
}

// renumber copies e with its variables and selectors renumbered.
func renumber(e graph.Edge, index map[int]int) graph.Edge {
	e.Vars = slices.Clone(e.Vars)
	for i, v := range e.Vars {
		e.Vars[i] = index[v]
	}
	if e.Selected {
		e.Sel = index[e.Sel]
		e.Branches = slices.Clone(e.Branches)
		for b := range e.Branches {
			e.Branches[b] = renumber(e.Branches[b], index)
		}
	}
	return e
}

// Algorithm names the computations of the parts ("closed form",
// "quadrature + closed form", …), each once, in the order of the parts.
func (pl *Plan) Algorithm() string {
	var names []string
	for _, p := range pl.parts {
		if a := p.Algorithm(); !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	return strings.Join(names, " + ")
}

// Run carries out the plan part by part: the log evidences add, each
// part's marginals go to its variables.
func (pl *Plan) Run(ctx context.Context, s NetSettings) (*NetResult, error) {
	if len(pl.parts) == 1 {
		return pl.parts[0].Run(ctx, s)
	}
	start := time.Now()
	res := &NetResult{Status: infer.Done, Algorithm: pl.Algorithm(), Vars: make([]NetMarginal, len(pl.net.Vars))}
	sub := s
	sub.Progress = nil
	for c, p := range pl.parts {
		if err := ctx.Err(); err != nil {
			res.Status, res.Message = infer.Canceled, err.Error()
			return res, err
		}
		if s.Progress != nil && c > 0 {
			s.Progress(c, len(pl.parts))
		}
		r, err := p.Run(ctx, sub)
		if err != nil {
			if r != nil && r.Status == infer.Canceled {
				res.Status, res.Message = infer.Canceled, r.Message
				return res, err
			}
			return nil, fmt.Errorf("%s: %w", pl.net.Vars[pl.vars[c][0]].Name, err)
		}
		res.LogZ += r.LogZ
		res.Updates += r.Updates
		res.ErrEstimate = max(res.ErrEstimate, r.ErrEstimate)
		if worse(r.Status, res.Status) {
			res.Status, res.Message = r.Status, r.Message
		}
		for i, v := range pl.vars[c] {
			res.Vars[v] = r.Vars[i]
		}
	}
	res.Runtime = time.Since(start)
	return res, nil
}
