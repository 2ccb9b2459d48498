package compile

import (
	"fmt"
	"slices"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// Name resolution is the part of semantic analysis (sema.go) that decides,
// for every identifier an expression uses as a name, which declaration it
// names — a top-level data, param or latent, or a variable of a plate
// around it — as go/types records Uses. The rule: a plate's variables
// (innermost first), then the globals declared before the use. A
// declaration's own expressions come before it (`data X = EXPR`,
// `param P = EXPR`, a latent's type), except a latent's prior, which
// follows its declaration as lowering binds it; the lines after the model
// statements (infer, predict, learn) see every global. A name that
// resolves to nothing is undefined there: a typo, a builtin used as a
// value, or a name used before its declaration.
//
// Lowering looks a name's binding up by the symbol resolved here
// (compiler.resolved) and reports an unresolved use, with the message
// made here (undefined), when it evaluates it: a statement that failed
// before reaching the name reports that one error only, and a name that
// is never evaluated (an option value such as `divergence = kl`) is no
// error. A use of a declaration that failed to lower is silent (its
// binding is poisoned: one mistake, one message) — that is decided by
// lowering, which knows which declarations failed.
//
// The expressions lowering evaluates that are not in the files — a
// --set value, an infer line added by --method or AddMethod — are
// resolved by the same rule on demand (resolveBefore, methodAnalysis);
// learning re-evaluates the expressions of the model, resolved already.

// scopeAt is what a use can name: the globals declared before it (the
// first limit symbols) and the variables of the plates around it,
// outermost first.
type scopeAt struct {
	limit  int
	plates []*symbol
}

// here is the scope of a top-level statement at the current point of the
// analysis: every global declared so far.
func (a *analysis) here() scopeAt { return scopeAt{limit: len(a.symbols)} }

// resolveResults resolves the infer, predict and learn lines, which see
// every global.
func (a *analysis) resolveResults() {
	for _, s := range a.results {
		a.resolveStmt(s, a.here())
	}
}

// resolveStmt resolves the expressions of a ~, factor, infer, predict or
// learn statement. Expect statements name results (mean(w), a predict) and
// are checked by their own rule (expectIdent).
func (a *analysis) resolveStmt(s ast.Stmt, sc scopeAt) {
	switch s := s.(type) {
	case *ast.TildeStmt:
		a.resolve(s.LHS, sc)
		a.resolve(s.Dist, sc)
	case *ast.FactorStmt:
		a.resolve(s.Call, sc)
	case *ast.InferStmt:
		a.resolveOptions(s.Options, sc)
	case *ast.PredictStmt:
		a.resolve(s.Value, sc)
	case *ast.LearnStmt:
		for _, it := range s.Items {
			a.resolve(it.Lo, sc)
			a.resolve(it.Hi, sc)
		}
		a.resolveOptions(s.Options, sc)
	case *ast.DataStmt, *ast.ParamStmt, *ast.LatentStmt:
		// a declaration inside a plate: refused by lowering before any
		// of its expressions is evaluated.
	}
}

// resolveOptions resolves the values of an infer or learn line's options.
func (a *analysis) resolveOptions(opts []*ast.Option, sc scopeAt) {
	for _, o := range opts {
		a.resolve(o.Value, sc)
	}
}

// resolveType resolves the expressions of a declared type (K of cat(K),
// the dimensions).
func (a *analysis) resolveType(t *ast.TypeExpr, sc scopeAt) {
	if t == nil {
		return
	}
	a.resolve(t.CatK, sc)
	for _, d := range t.Dims {
		a.resolve(d, sc)
	}
}

// resolve records the resolution of every name e uses in scope sc, and
// of a called function's name: the declaration it names, which lowering
// refuses to call, nil for a builtin's (never undefined: an unknown
// function is lowering's message). The identifiers that are not names —
// a named argument's key, a selector — are left to lowering.
func (a *analysis) resolve(e ast.Expr, sc scopeAt) {
	switch e := e.(type) {
	case *ast.Ident:
		sym := a.lookup(e.Name, sc)
		a.uses[e] = sym
		if sym == nil {
			a.unresolved[e] = sc
		}
	case *ast.ParenExpr:
		a.resolve(e.X, sc)
	case *ast.ListLit:
		for _, x := range e.Elems {
			a.resolve(x, sc)
		}
	case *ast.UnaryExpr:
		a.resolve(e.X, sc)
	case *ast.BinaryExpr:
		a.resolve(e.X, sc)
		a.resolve(e.Y, sc)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			a.uses[id] = a.lookup(id.Name, sc)
		} else {
			a.resolve(e.Fun, sc)
		}
		for _, x := range e.Args {
			a.resolve(x, sc)
		}
		for _, n := range e.Named {
			a.resolve(n.Value, sc)
		}
	case *ast.IndexExpr:
		a.resolve(e.X, sc)
		for _, x := range e.Indices {
			a.resolve(x, sc)
		}
	case *ast.SliceExpr:
		a.resolve(e.Lo, sc)
		a.resolve(e.Hi, sc)
	case *ast.RangeExpr:
		a.resolve(e.Lo, sc)
		a.resolve(e.Hi, sc)
	}
}

// lookup is the declaration name denotes in scope sc, nil when none: a
// plate variable (innermost first), else the first declaration of a global
// declared before the use.
func (a *analysis) lookup(name string, sc scopeAt) *symbol {
	for i := len(sc.plates) - 1; i >= 0; i-- {
		if sc.plates[i].name == name {
			return sc.plates[i]
		}
	}
	if sym := a.scope[name]; sym != nil && sym.index < sc.limit {
		return sym
	}
	return nil
}

// resolveBefore resolves e, an expression that is not in the files, where
// the declaration of id stands (a --set value in place of a param's).
func (a *analysis) resolveBefore(e ast.Expr, id *ast.Ident) {
	sc := a.here()
	if sym := a.byIdent[id]; sym != nil {
		sc.limit = sym.index
	}
	a.resolve(e, sc)
}

// methodAnalysis is the table an infer line added to a compiled model
// (--method, AddMethod) is resolved against: the model's params, the only
// names its options can read. It resolves s.
func methodAnalysis(fset *ast.FileSet, params []string, s *ast.InferStmt) *analysis {
	a := newAnalysis(fset, nil)
	for _, name := range slices.Sorted(slices.Values(params)) {
		a.declare(&ast.Ident{Name: name}, bParam)
	}
	a.resolveStmt(s, a.here())
	return a
}

// undefined is the error of a use of id that names no declaration in its
// scope: a builtin used as a value, or an undefined name with a suggestion
// among the names in scope that lowered (for which lowered is true: a
// declaration that failed on a value is no suggestion) and the builtins.
// Result accessors (mean, b, …) are left out: they only have a meaning
// inside expect, which reports its own undefined names (expectIdent).
func (a *analysis) undefined(id *ast.Ident, lowered func(*symbol) bool) string {
	if bs := stdlib.LookupAny(id.Name); len(bs) > 0 {
		switch bs[0].Kind {
		case stdlib.Kernel, stdlib.Data, stdlib.Math, stdlib.Loss:
			return fmt.Sprintf("`%s` is a builtin function; call it: %s", id.Name, bs[0].Signature())
		}
		return fmt.Sprintf("`%s` is a %s and cannot be used here", id.Name, bs[0].Kind)
	}
	if _, ok := a.uses[id]; !ok {
		panic(fmt.Sprintf("name `%s` at %s was not resolved", id.Name, a.fset.Position(id.Pos())))
	}
	cands := a.visible(a.unresolved[id], lowered) // none when id resolved to a declaration lowering did not bind
	for _, b := range stdlib.All() {
		if b.Kind != stdlib.Accessor {
			cands = append(cands, b.Name)
		}
	}
	return fmt.Sprintf("undefined: `%s`", id.Name) + didYouMean(id.Name, cands)
}

// visible lists, sorted, the names in scope sc a misspelt name may be
// meant as: the plate variables and the globals declared before whose
// declaration lowered (lowered true; not one in error: a latent named like
// a builtin, a redeclaration — the first declaration's name stands).
func (a *analysis) visible(sc scopeAt, lowered func(*symbol) bool) []string {
	var out []string
	for _, v := range sc.plates {
		out = append(out, v.name)
	}
	for _, sym := range a.symbols[:sc.limit] {
		if sym.first == nil && lowered(sym) {
			out = append(out, sym.name)
		}
	}
	slices.Sort(out)
	return out
}
