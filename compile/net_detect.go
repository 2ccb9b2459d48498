package compile

import (
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// netOnly reports whether the distribution called name exists only on
// the typed factor graph: every kind of that name is a factor.NetKind with
// no Gaussian-block or discrete-engine form (not a Gaussian prior, a
// selector's prior, a uniform discrete prior or a likelihood on a
// projection) — beta, gamma, inv_gamma, dirichlet, bernoulli, binomial,
// poisson.
func netOnly(name string) bool {
	found := false
	for _, k := range factor.All() {
		if k.Name() != name {
			continue
		}
		if _, ok := k.(factor.NetKind); !ok {
			return false
		}
		switch k.(type) {
		case graph.PriorKind, factor.Selector, factor.DiscretePrior, factor.LikelihoodKind:
			return false
		}
		found = true
	}
	return found
}

// isSelectorPrior reports whether name is the prior of selectors
// (categorical), whose probabilities may be latent only on the typed
// factor graph.
func isSelectorPrior(name string) bool {
	k, ok := factor.Lookup(name, factor.Prior)
	if !ok {
		return false
	}
	_, sel := k.(factor.Selector)
	return sel
}

// isNetModel reports whether the model's files (the root file and its
// imports) describe a model that
// lowers to the typed factor graph (net.go) rather than to Gaussian
// blocks: it uses a distribution that exists only there (netOnly: it gives
// a latent a non-Gaussian family or observes through one), or a categorical whose
// probabilities depend on a latent (latent weights `categorical(w)`, the
// rows of a discrete chain `categorical(A[z[t-1]])`). The decision is
// syntactic, made once by semantic analysis before the statements
// compile, so that every statement of a model is lowered to one form; the
// other models compile exactly as before.
func isNetModel(files []*ast.File) bool {
	latents := map[string]bool{}
	for _, f := range files {
		for _, s := range f.Stmts {
			if l, ok := s.(*ast.LatentStmt); ok {
				latents[l.Name.Name] = true
			}
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
	for _, f := range files {
		visit(f.Stmts)
	}
	return found
}

// netCall reports whether one distribution call makes a model a Net model
// (isNetModel).
func netCall(call *ast.CallExpr, latents map[string]bool) bool {
	name := call.FunName()
	if netOnly(name) {
		return true
	}
	if !isSelectorPrior(name) {
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
