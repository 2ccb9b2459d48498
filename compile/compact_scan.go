package compile

import (
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// Streamed weights below maxLatent elements are compact too, when the
// model's text shows that nothing reads them element by element: the
// latent is declared once, `latent w: real[d] ~ normal(m, v)` with m and
// v numbers, and every other mention of w in the model's files is the
// weights of a libsvm plate, `for i in … { y[i] ~ LIK(dot(X[i], w), …) }`,
// the weights of `predictive(w, Xt)`, or a result read in an expect line;
// X and Xt must be libsvm features already declared when w is. Such a
// latent compiles as the weights above the limit do (compactLatent): no
// graph variables and a prior of two numbers, so a streamed weight costs
// the run its engine's streamWeightBytes at every d instead of ~56 bytes
// (a graph variable, its prior factor's id, its own prior mean and
// variance). The engine reads a shared prior exactly as the same numbers
// repeated (infer/stream), so the posterior is the same. Anything else —
// data declared after w, a per-element prior, another use — keeps w
// ordinary, as before.

// weightUses is what the model's text does with one name: how often it
// appears outside its declaration and expect lines, how many of those are
// libsvm weights, and the data named as their features.
type weightUses struct {
	declared, uses, streamed int
	features                 []string // X of dot(X[i], w), Xt of predictive(w, Xt)
}

// scanWeights reads what the model's files do with each name (part of
// semantic analysis: the text alone decides it).
func scanWeights(files []*ast.File) map[string]*weightUses {
	weights := map[string]*weightUses{}
	use := func(name string) *weightUses {
		u := weights[name]
		if u == nil {
			u = &weightUses{}
			weights[name] = u
		}
		return u
	}
	stmts := func(list []ast.Stmt) {
		for _, s := range list {
			switch s := s.(type) {
			case *ast.ExpectStmt:
				continue // reads results by name
			case *ast.LatentStmt:
				use(s.Name.Name).declared++
				if s.Prior != nil {
					countIdents(s.Prior, use)
				}
				countIdents(s.Type, use)
				continue
			case *ast.ForStmt:
				if w, x, ok := streamedPlate(s); ok {
					u := use(w.Name)
					u.streamed++
					u.features = append(u.features, x)
				}
			case *ast.PredictStmt:
				if w, x, ok := streamedPredict(s); ok {
					u := use(w.Name)
					u.streamed++
					u.features = append(u.features, x)
				}
			}
			countIdents(s, use)
		}
	}
	for _, f := range files {
		stmts(f.Stmts)
	}
	return weights
}

// countIdents counts every identifier under n as a use.
func countIdents(n ast.Node, use func(string) *weightUses) {
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			use(id.Name).uses++
		}
		return true
	})
}

// streamedPlate matches `for i in … { Y[i] ~ LIK(dot(X[i], w), …) }` (or
// dot(w, X[i])) and returns w and X's name.
func streamedPlate(s *ast.ForStmt) (*ast.Ident, string, bool) {
	if len(s.Vars) != 1 || len(s.Body) != 1 {
		return nil, "", false
	}
	t, ok := s.Body[0].(*ast.TildeStmt)
	if !ok {
		return nil, "", false
	}
	lik, ok := t.Dist.(*ast.CallExpr)
	if !ok || len(lik.Args) == 0 {
		return nil, "", false
	}
	d, ok := lik.Args[0].(*ast.CallExpr)
	if !ok || d.FunName() != "dot" || len(d.Args) != 2 || len(d.Named) != 0 {
		return nil, "", false
	}
	for k := range 2 {
		ix, ok := d.Args[k].(*ast.IndexExpr)
		w, isW := d.Args[1-k].(*ast.Ident)
		if !ok || !isW || len(ix.Indices) != 1 {
			continue
		}
		x, okX := ix.X.(*ast.Ident)
		i, okI := ix.Indices[0].(*ast.Ident)
		if okX && okI && i.Name == s.Vars[0].Name {
			return w, x.Name, true
		}
	}
	return nil, "", false
}

// streamedPredict matches `predict p = predictive(w, Xt)` with Xt a name.
func streamedPredict(s *ast.PredictStmt) (*ast.Ident, string, bool) {
	call, ok := s.Value.(*ast.CallExpr)
	if !ok || call.FunName() != "predictive" || len(call.Args) != 2 || len(call.Named) != 0 {
		return nil, "", false
	}
	w, okW := call.Args[0].(*ast.Ident)
	x, okX := call.Args[1].(*ast.Ident)
	if !okW || !okX {
		return nil, "", false
	}
	return w, x.Name, true
}

// streamedWeights reports whether latent s (domain d, shape) of at most
// maxLatent elements is only ever the weights of libsvm plates (see
// above), so that it compiles compact.
func (c *compiler) streamedWeights(s *ast.LatentStmt, d graph.Domain, shape []int) bool {
	u := c.an.weights[s.Name.Name]
	if u == nil || u.declared != 1 || u.streamed == 0 || u.uses != u.streamed || d != graph.Real || len(shape) != 1 || c.net != nil {
		return false
	}
	call, ok := s.Prior.(*ast.CallExpr)
	if !ok {
		return false
	}
	if k, _ := factor.Lookup(call.FunName(), factor.Prior); k == nil {
		return false
	} else if _, normal := k.(factor.NormalPrior); !normal {
		return false
	}
	for _, a := range call.Args {
		if !c.scalarNumber(a) {
			return false
		}
	}
	for _, a := range call.Named {
		if !c.scalarNumber(a.Value) {
			return false
		}
	}
	for _, x := range u.features {
		b, ok := c.lookup(x)
		if !ok || b.poisoned || b.kind != bData || b.v.k != kSparse || b.v.sparse.labels {
			return false
		}
	}
	return true
}

// scalarNumber reports whether e is a number as written (1, -0.5) or the
// name of a scalar number already bound.
func (c *compiler) scalarNumber(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.NumberLit:
		return true
	case *ast.UnaryExpr:
		return e.Op == ast.OpNeg && c.scalarNumber(e.X)
	case *ast.Ident:
		b := c.resolved(e)
		return b != nil && !b.poisoned && (b.kind == bData || b.kind == bParam) && b.v.k == kNum && len(b.v.shape) == 0
	}
	return false
}
