package compile

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
)

// categoricalPrior compiles `latent z: cat(K)[...] ~ categorical(p)`: one
// unary table p per element, which the discrete engines read as any table
// and the gated factors (gate.go) as the selector's prior.
func (c *compiler) categoricalPrior(lat int, a *args) {
	l := &c.m.Graph.Latents[lat]
	pv, _ := a.val(0)
	if pv.k != kNum || len(pv.shape) != 1 {
		c.fail(a.at(0), "categorical: p must be a vector of %d probabilities, got %s", l.Card, pv.describe())
	}
	cat, err := factor.NewCategorical(pv.num, l.Card)
	if err != nil {
		c.fail(a.at(0), "%v", err)
	}
	first := -1
	for e := 0; e < l.Size(); e++ {
		id := l.First + e
		f := c.addFactor(a.call, graph.Factor{Kind: cat.Name(), Vars: []int{id}, Table: cat.Table(),
			Label: fmt.Sprintf("%s(%s)", cat.Name(), c.m.Graph.VarName(id)), Pos: a.call.Pos()})
		if first < 0 {
			first = f
		}
	}
	c.prior[lat] = &priorDecl{factor: first, pos: a.call.Pos()}
}
