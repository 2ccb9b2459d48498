package compile

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib/ad"
)

// NetTangents are the derivatives at learned values x of the numbers of
// a typed factor graph's factors (Model.Net), with their values: Factors[i]
// lists factor i's numbers in learning's layout, graph.NetFactor.Data
// then Affine — nil for a factor no learned param reaches. A number
// without an exact derivative is a NaN constant (learnWarnings says where
// and why).
type NetTangents struct {
	Factors [][]ad.Jet
	falls   []jetFall
}

// NetTangents returns the derivatives at learned values x (LearnFunc
// order) of the numbers of net, the typed factor graph of the model (at
// any values: only its layout and variables are read), by forward-mode AD
// as Tangents: the recorded statements that setNet evaluates again have
// their arguments evaluated with their tangents — a data edge's number (a
// beta prior's pseudo-count, a known variance, in its canonical form as
// netVal converts it; a categorical's probabilities), an affine edge's
// coefficients and constant (b * mu + c, the affine form's, in the order
// of the compiled form's variables), each branch of a selected edge with
// its selector replaced by the branch's state, as netEdges evaluates them.
func (f *LearnFunc) NetTangents(x []float64, net *graph.Net) (t *NetTangents, err error) {
	c := f.differentiating(false)
	defer c.catchAbort(&err)
	if err := f.setValues(c, x); err != nil {
		return nil, err
	}
	c.net = newNetState()
	t = &NetTangents{Factors: make([][]ad.Jet, len(net.Factors))}
	for _, s := range f.st.rec.nets {
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		params := c.netArgs(a, c.netParamsOf(s.call, s.k, s.b))
		uses := c.selectors(a.call)
		states := 0
		if len(uses) > 0 {
			states = c.m.Graph.Vars[uses[0].ids[0]].Card
		}
		for e := range s.n {
			i := s.first + e
			if i >= len(net.Factors) {
				return nil, fmt.Errorf("the factors of %s are not in the typed factor graph", s.b.Name)
			}
			nf := &net.Factors[i]
			nj := netJets{c: c, a: a, uses: uses, states: states}
			for j, ed := range nf.Edges {
				if s.prior && j == 0 {
					nj.constant(ed) // the target x
					continue
				}
				if j -= b2i(s.prior); j >= len(params) {
					break // too few arguments: the factor's numbers are NaN (flat)
				}
				nj.edge(params[j], ed, e)
			}
			t.Factors[i] = nj.flat(nf)
		}
	}
	c.locals, t.falls = nil, c.jet.falls
	return t, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// netJets gathers one factor's numbers as jets, in NetFactor.Data's and
// Affine's orders, from call a (whose selectors uses select among states
// states).
type netJets struct {
	c         *compiler
	a         *args
	uses      []selectorUse
	states    int
	data, aff []ad.Jet
}

// constant appends ed's numbers (and its branches') as constants.
func (n *netJets) constant(ed graph.Edge) {
	n.data = append(n.data, ad.Consts(ed.Value)...)
	if len(ed.Vars) > 0 {
		n.aff = append(append(n.aff, ad.Consts(ed.Coefs)...), ad.Const(ed.Const))
	}
	for _, b := range ed.Branches {
		n.constant(b)
	}
}

// edge appends the jets of ed, the compiled edge of argument ar for
// element e: a selected edge's branches each in its state.
func (n *netJets) edge(ar *netArg, ed graph.Edge, e int) {
	c := n.c
	if !c.readsJet(ar.e) {
		n.constant(ed)
		return
	}
	if !ed.Selected {
		if len(n.uses) > 0 { // a merged edge, the same in every state (netEdges)
			defer c.inState(n.uses, 0, n.states)()
		}
		n.leaf(ar, ed, e)
		return
	}
	for st, b := range ed.Branches {
		restore := c.inState(n.uses, st, n.states)
		n.leaf(ar, b, 0)
		restore()
	}
}

// leaf appends the jets of ed, an edge without branches, for element e
// of argument ar: its data with their tangents, or its coefficients and
// constant with their tangents in the order of the compiled form's
// variables.
func (n *netJets) leaf(ar *netArg, ed graph.Edge, e int) {
	c := n.c
	if !c.readsLatent(ar.e) {
		v := c.tangentsOf(ar.e, c.eval(ar.e))
		if f := n.a.form(ar.i); f != nil && ar.p.edge != precEdge && !ar.p.vector && v.lack == nil {
			js := make([]ad.Jet, len(v.j))
			for i, u := range v.j {
				js[i] = f.CanonicalJet(u)
			}
			v.j = js
		}
		switch {
		case v.lack != nil:
			n.fail(v, ed)
		case ar.p.vector && len(v.j) == len(ed.Value):
			n.data = append(n.data, v.j...)
		case ar.p.vector && len(v.j) == 1:
			for range ed.Value {
				n.data = append(n.data, v.j[0])
			}
		case !ar.p.vector && len(ed.Value) == 1 && len(v.j) > 0:
			n.data = append(n.data, v.j[min(e, len(v.j)-1)])
		default:
			n.fail(*lost(ar.e, "%d numbers for the %d of the edge", len(v.j), len(ed.Value)), ed)
		}
		return
	}
	v := c.netVal(n.a, ar)
	var forms func(int) lin
	if v.k == kSym {
		forms = v.sym.forms()
	}
	if forms == nil {
		n.fail(*lost(ar.e, "`%s` has no derivative in the learned params (forward-mode AD covers + − of latents and their products with numbers)", c.text(ar.e)), ed)
		return
	}
	fm := forms(min(e, v.size()-1))
	switch {
	case fm.d != nil && fm.d.lack != nil:
		n.fail(*lost(ar.e, "`%s` has no derivative in the learned params (forward-mode AD covers + − of latents and their products with numbers)", c.text(ar.e)), ed)
	case len(ed.Vars) == 0: // every coefficient 0: the constant is data
		n.data = append(n.data, fm.constJet())
	case len(fm.ids) != len(ed.Vars):
		n.fail(*lost(ar.e, "`%s` has %d variables, its edge %d", c.text(ar.e), len(fm.ids), len(ed.Vars)), ed)
	default:
		for j := range fm.ids {
			n.aff = append(n.aff, fm.coefJet(j))
		}
		n.aff = append(n.aff, fm.constJet())
	}
}

// fail appends ed's numbers as NaN constants (no exact derivative) and
// notes why (v's lack).
func (n *netJets) fail(v tangents, ed graph.Edge) {
	n.c.fellBack(v)
	nan := ad.Const(math.NaN())
	for range ed.Value {
		n.data = append(n.data, nan)
	}
	if len(ed.Vars) > 0 {
		for range len(ed.Vars) + 1 {
			n.aff = append(n.aff, nan)
		}
	}
}

// flat is the factor's numbers, Data then Affine; all NaN when their
// count is not nf's.
func (n *netJets) flat(nf *graph.NetFactor) []ad.Jet {
	nd, na := len(nf.Data()), len(nf.Affine())
	if len(n.data) != nd || len(n.aff) != na {
		out := make([]ad.Jet, nd+na)
		for i := range out {
			out[i] = ad.Const(math.NaN())
		}
		return out
	}
	return append(n.data, n.aff...)
}
