package compile

import (
	"math"

	"github.com/fg-infer/fg/graph"
)

// learnWarnings warns, once per place, where learning will take central
// differences instead of exact derivatives: the numbers a learned param
// reaches through an expression without jets (@, a data builtin;
// learn_jets.go). It runs the forward-mode pass
// learning runs (Tangents, GraphTangents or NetTangents) at the learned
// params' starting values and warns at each place it noted (jetFall). A
// model whose learning uses no gradient (Student-t blocks) or whose pass
// fails (an error: learning reports why) gets none. The passes turn their
// own aborts into errors (catchAbort); any other panic is a bug and is
// not hidden.
func (m *Model) learnWarnings() {
	f, err := m.LearnFunc()
	if err != nil {
		return
	}
	x := make([]float64, len(f.names))
	for i, p := range m.Learn.Params {
		v, ok := m.Params[p.Name]
		if !ok || len(v.Num) != 1 {
			return
		}
		x[i] = v.Num[0]
		if p.Bounded { // as learning starts: inside the bounds
			w := p.Hi - p.Lo
			x[i] = math.Min(math.Max(x[i], p.Lo+1e-9*w), p.Hi-1e-9*w)
		}
	}
	var falls []jetFall
	switch {
	case m.Net != nil:
		if t, err := f.NetTangents(x, m.Net); err == nil {
			falls = t.falls
		}
	case m.Blocks() != nil:
		for _, b := range m.Blocks() {
			if b.Prior.Kind.Family() != graph.Gaussian {
				return
			}
		}
		if t, err := f.Tangents(x); err == nil {
			falls = t.falls
		}
	case m.FactorGraph != nil:
		if t, err := f.GraphTangents(x, m.FactorGraph); err == nil {
			falls = t.falls
		}
	}
	seen := map[string]bool{}
	for _, fl := range falls {
		pos := m.Fset.Position(fl.at.Pos())
		if seen[pos.String()] {
			continue
		}
		seen[pos.String()] = true
		m.Warnings.Add(pos, m.Fset.Position(fl.at.End()), "learn: %s; learn differentiates what it reaches by central differences instead", fl.msg)
	}
}
