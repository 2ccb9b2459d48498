package compile

import (
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/lang/ast"
)

// isNetModel reports whether the root file f describes a model that
// lowers to the typed factor graph (net.go) rather than to Gaussian
// blocks: it uses a distribution that exists only there (factor.NetOnly:
// one that gives a latent a non-Gaussian family or observes through one),
// or a categorical whose
// probabilities depend on a latent (latent weights `categorical(w)`, the
// rows of a discrete chain `categorical(A[z[t-1]])`). The decision is
// syntactic, made once before the statements compile, so that every
// statement of a model is lowered to one form; the other models compile
// exactly as before.
func isNetModel(f *ast.File) bool {
	latents := map[string]bool{}
	for _, s := range f.Stmts {
		if l, ok := s.(*ast.LatentStmt); ok {
			latents[l.Name.Name] = true
		}
	}
	found := false
	var visit func(stmts []ast.Stmt)
	visit = func(stmts []ast.Stmt) {
		for _, s := range stmts {
			var dist ast.Expr
			switch s := s.(type) {
			case *ast.LatentStmt:
				dist = s.Prior
			case *ast.TildeStmt:
				dist = s.Dist
			case *ast.ForStmt:
				visit(s.Body)
			}
			if call, ok := dist.(*ast.CallExpr); ok && netCall(call, latents) {
				found = true
			}
		}
	}
	visit(f.Stmts)
	return found
}

// netCall reports whether one distribution call makes a model a Net model
// (isNetModel).
func netCall(call *ast.CallExpr, latents map[string]bool) bool {
	name := call.FunName()
	if factor.NetOnly(name) {
		return true
	}
	if k, ok := factor.Lookup(name, factor.Prior); !ok || !isCategorical(k) {
		return false
	}
	found := false
	ast.Inspect(call, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && latents[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

func isCategorical(k factor.Kind) bool {
	_, ok := k.(factor.Categorical)
	return ok
}
