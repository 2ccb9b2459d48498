package compile

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// A typed factor graph (Model.Net) is set in place like a factor graph
// (learn_inplace.go): a learned param reaches it only as data of its
// factors' edges (a beta prior's pseudo-counts, a known variance, a
// categorical's probabilities) or as a coefficient or constant of an
// affine edge (normal(b * mu + c, 1 / tau)), and the statement that made
// those factors is recorded (netSlot) and its edges evaluated again at
// every value; their numbers (graph.NetFactor.Data, Affine) replace the
// factors' in a copy of the compiled Net (learnCopy).

// netSlot is a Net statement (a prior or conditional when prior, whose
// factors' first edge is the target; else a likelihood) whose arguments
// read a dependent param: it made the n factors c.net.factors[first:
// first+n] of kind k (K: the Dirichlet rows' or the discrete variables'
// size), evaluated with the plate variables locals.
type netSlot struct {
	call   *ast.CallExpr
	b      *stdlib.Builtin
	k      factor.NetKind
	n, K   int
	first  int
	prior  bool
	locals []local
}

// netSlot records the Net statement call when one of its arguments args
// reads a dependent param.
func (r *learnRec) netSlot(c *compiler, call *ast.CallExpr, b *stdlib.Builtin, k factor.NetKind, n, K int, prior bool, args []*netArg) {
	if r == nil {
		return
	}
	for _, ar := range args {
		if ar.learned {
			r.nets = append(r.nets, netSlot{call: call, b: b, k: k, n: n, K: K, first: len(c.net.factors), prior: prior, locals: c.snapshotLocals()})
			return
		}
	}
}

// setNet re-evaluates the recorded Net statements with c (its params
// bound at the new values) and sets their factors' data and affine
// numbers in net, each factor checked by its kind as compile checks it.
// The numbers are all evaluated before any is set.
func (f *LearnFunc) setNet(c *compiler, net *graph.Net) error {
	c.net = newNetState()
	type set struct {
		i         int
		data, aff []float64
	}
	var sets []set
	for _, s := range f.st.rec.nets {
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		edges, _ := c.netEdges(a, c.netParamsOf(s.call, s.k, s.b), s.n, s.K)
		for e := range s.n {
			i := s.first + e
			if i >= len(net.Factors) {
				return fmt.Errorf("the factors of %s are not in the typed factor graph", s.b.Name)
			}
			nf := graph.NetFactor{Kind: s.k, Edges: edges(e)}
			old := &net.Factors[i]
			if s.prior {
				nf.Edges = append([]graph.Edge{old.Edges[0]}, nf.Edges...)
			}
			nf.Observed, nf.Y = old.Observed, old.Y
			if err := s.k.CheckNet(&nf, assumedFamilies(s.k, &nf)); err != nil {
				return fmt.Errorf("%s: %w", old.Label, err)
			}
			d, af := nf.Data(), nf.Affine()
			if len(d) != len(old.Data()) || len(af) != len(old.Affine()) {
				return fmt.Errorf("changes the variables of %s (a learned coefficient of exactly 0 drops its variable)", old.Label)
			}
			sets = append(sets, set{i, d, af})
		}
	}
	c.locals = nil
	for _, s := range sets {
		g := &net.Factors[s.i]
		*g = g.WithData(s.data)
		*g = g.WithAffine(s.aff)
	}
	return nil
}
