package compile

import (
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// checkDraws refuses an mcmc line whose kept draws, chains × samples × scalar quantities sampled (every
// element of a continuous block, every state of a discrete variable but one
// state of a binary one), would exceed infer.KeptDrawsLimit (the memory budget): the sampler
// keeps them all to compute its diagnostics.
func (c *compiler) checkDraws(s *ast.InferStmt, spec *InferSpec) {
	if spec.Method != infer.MethodMCMC || spec.Samples <= 0 || spec.Chains <= 0 {
		return
	}
	q := 0
	for _, b := range c.m.Blocks() {
		q += b.N
	}
	if c.m.Graph != nil {
		for _, v := range c.m.Graph.Vars {
			if v.Domain.Discrete() {
				q += keptStates(v.Card)
			}
		}
	}
	q = max(q, 1)
	lim := infer.KeptDrawsLimit()
	if spec.Samples <= lim/spec.Chains/q {
		return
	}
	c.fail(optionNamed(s, "samples"), "infer mcmc would keep chains × samples × sampled quantities = %d × %d × %d draws, more than the %d that fit in the memory budget of %s; lower `samples` or `chains`",
		spec.Chains, spec.Samples, q, lim, infer.FormatBytes(infer.MemoryBudget()))
}

// keptStates is the number of state probabilities Gibbs keeps for a
// variable with card states: one for a binary variable (the other is its
// complement), else all.
func keptStates(card int) int {
	if card == 2 {
		return 1
	}
	return card
}

// optionNamed returns option key of s (`key = value`), or s itself when
// it is not given (a default).
func optionNamed(s *ast.InferStmt, key string) ast.Node {
	for _, o := range s.Options {
		if o.Key.Name == key {
			return o
		}
	}
	return s
}
