package compile

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// catPrior is the categorical prior of one element of a cat(K) latent.
type catPrior struct {
	p   []float64
	pos ast.Pos
}

// categoricalPrior compiles `latent z: cat(K)[...] ~ categorical(p)`: one
// unary table p per element, which the discrete engines read as any table
// and the gated factors (gate.go) as the selector's prior.
func (c *compiler) categoricalPrior(lat int, a *args) {
	l := &c.m.Graph.Latents[lat]
	ids := make([]int, l.Size())
	for e := range ids {
		ids[e] = l.First + e
	}
	first := c.categoricalTables(a, l.Card, ids)
	c.prior[lat] = &priorDecl{factor: first, pos: a.call.Pos()}
}

// elementCategorical compiles `z[i] ~ categorical(p)` on elements of a
// cat(K) latent (in a plate, p may differ per element). It reports false
// when the left side is not elements of a discrete latent or the
// distribution is not categorical.
func (c *compiler) elementCategorical(lhsAt ast.Node, lhs val, call *ast.CallExpr) bool {
	sy := lhs.sym
	if sy.lat < 0 || sy.exprs || sy.ids == nil {
		return false
	}
	k, _ := factor.Lookup(call.FunName(), factor.Prior)
	if _, cat := k.(factor.Categorical); !cat {
		return false
	}
	l := &c.m.Graph.Latents[sy.lat]
	if !l.Domain.Discrete() {
		return false
	}
	if l.Domain != graph.Cat {
		c.fail(lhsAt, "categorical is a prior for cat latents, but `%s` is %s", l.Name, l.Domain)
	}
	if p, ok := c.prior[sy.lat]; ok {
		c.fail(lhsAt, "latent `%s` already has a prior (at %s)", l.Name, c.fset.Position(p.pos))
	}
	c.categoricalTables(c.bind(call, c.distribution(call)), l.Card, sy.ids)
	return true
}

// categoricalTables evaluates categorical(p) for K states and adds its
// unary table on each of ids, recording each element's prior (one per
// element); it returns the first factor's index.
func (c *compiler) categoricalTables(a *args, K int, ids []int) int {
	pv, _ := a.val(0)
	if pv.k != kNum || len(pv.shape) != 1 {
		c.fail(a.at(0), "categorical: p must be a vector of %d probabilities, got %s", K, pv.describe())
	}
	cat, err := factor.NewCategorical(pv.num, K)
	if err != nil {
		c.fail(a.at(0), "%v", err)
	}
	if c.gate.prior == nil {
		c.gate.prior = map[int]catPrior{}
	}
	first := -1
	for _, id := range ids {
		if old, ok := c.gate.prior[id]; ok {
			c.fail(a.call, "`%s` already has a categorical prior (at %s)", c.m.Graph.VarName(id), c.fset.Position(old.pos))
		}
		c.gate.prior[id] = catPrior{cat.Table(), a.call.Pos()}
		f := c.addFactor(a.call, graph.Factor{Kind: factor.Categorical{}, Vars: []int{id}, Table: cat.Table(),
			Label: fmt.Sprintf("%s(%s)", cat.Name(), c.m.Graph.VarName(id)), Pos: a.call.Pos()})
		if first < 0 {
			first = f
		}
	}
	return first
}
