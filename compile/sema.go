package compile

import (
	"fmt"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// Semantic analysis is the compiler's stage between reading the files
// (load.go: the root and, once each, the files it imports) and lowering.
// Before any value is computed, it decides what the text alone decides:
// which files make up the model, every declared name with its kind,
// position and declaration order, which declarations are in error (a name
// declared twice, a latent named like a builtin), which plate variables
// shadow a name in scope or repeat one of their plate, which params an override can name, what the
// text does with each latent (compact_scan.go) and whether the model
// lowers to the typed factor graph (isNetModel). Lowering (the rest of
// the package) evaluates values and builds the model, and reads these
// decisions instead of making them again; a binding (compile.go) holds a
// name's value, in the slot of its symbol, the symbol its declaration.
//
// An analysis error is reported by lowering when it reaches the statement
// (declare, forStmt), not by the analysis itself: a statement that already
// failed on a value before its name is checked reports that one error
// only, and the errors of the statements in a plate stop at the plate's
// first error, as they always have (one mistake, one message).

// symbol is one declaration: a top-level data, param or latent statement,
// or a variable of a for plate.
type symbol struct {
	name string
	kind bindKind // bData, bParam, bLatent or bLoop
	pos  ast.Pos  // the declared identifier
	// index is a top-level declaration's place in declaration order
	// (analysis.symbols), the slot lowering binds it in
	// (compiler.slots); a plate variable's is its slot among the plate
	// variables in scope where it is declared, outermost first
	// (compiler.locals).
	index int
	// plate is a plate variable's plate, nil for a global.
	plate *ast.ForStmt
	// first is the earlier declaration of the same name when this one
	// redeclares it (a global, or a variable of the same plate), else nil.
	first *symbol
}

// analysis is what semantic analysis decides about a model's files.
type analysis struct {
	fset *ast.FileSet
	// files are the root file and the files it imports, transitively,
	// each once, in the order their statements are lowered.
	files []*ast.File
	// imports is the file each import statement brings in; an import that
	// failed or repeats an earlier one (a diamond) is absent.
	imports map[*ast.ImportStmt]*ast.File
	// symbols are every top-level declaration in declaration order, the
	// order of lowering (imported statements where their import statement
	// is); byIdent finds one — or a plate variable — by its declared
	// identifier, and scope the first declaration of a global's name.
	symbols []*symbol
	byIdent map[*ast.Ident]*symbol
	scope   map[string]*symbol
	// shadows holds the plate variables that shadow a name in scope: a
	// global declared before the plate, or a variable of an enclosing
	// plate.
	shadows map[*ast.Ident]bool
	// uses resolves every identifier the model's expressions use as a
	// name (resolve.go) — and those of the expressions lowering evaluates
	// outside the files, resolved on demand — to its symbol, nil when it
	// names none; unresolved holds the scope of those, for their message.
	uses       map[*ast.Ident]*symbol
	unresolved map[*ast.Ident]scopeAt
	// results are the infer, predict and learn lines, resolved after the
	// model statements, as lowering compiles them.
	results []ast.Stmt
	// weights is what the text does with each name (compact_scan.go).
	weights map[string]*weightUses
	// net is whether the model lowers to the typed factor graph
	// (isNetModel) rather than to Gaussian blocks.
	net bool
}

// analyse analyses the root file root and the files its import statements
// bring in (imports, as load read them).
func analyse(fset *ast.FileSet, root *ast.File, imports map[*ast.ImportStmt]*ast.File) *analysis {
	a := newAnalysis(fset, imports)
	a.file(root)
	a.resolveResults()
	a.weights = scanWeights(a.files)
	a.net = isNetModel(a.files)
	return a
}

// newAnalysis is an empty analysis.
func newAnalysis(fset *ast.FileSet, imports map[*ast.ImportStmt]*ast.File) *analysis {
	return &analysis{
		fset:       fset,
		imports:    imports,
		byIdent:    map[*ast.Ident]*symbol{},
		scope:      map[string]*symbol{},
		shadows:    map[*ast.Ident]bool{},
		uses:       map[*ast.Ident]*symbol{},
		unresolved: map[*ast.Ident]scopeAt{},
	}
}

// file analyses the top-level statements of f, entering each import where
// it stands, as lowering does.
func (a *analysis) file(f *ast.File) {
	a.files = append(a.files, f)
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *ast.ImportStmt:
			if g := a.imports[s]; g != nil {
				a.file(g)
			}
		case *ast.DataStmt:
			a.resolveType(s.Type, a.here())
			a.resolve(s.Value, a.here())
			a.declare(s.Name, bData)
		case *ast.ParamStmt:
			a.resolve(s.Value, a.here())
			a.declare(s.Name, bParam)
		case *ast.LatentStmt:
			a.resolveType(s.Type, a.here())
			a.declare(s.Name, bLatent)
			a.resolve(s.Prior, a.here())
		case *ast.ForStmt:
			a.plate(s, a.here())
		case *ast.InferStmt, *ast.PredictStmt, *ast.LearnStmt:
			a.results = append(a.results, s) // lowered after the model statements
		default:
			a.resolveStmt(s, a.here())
		}
	}
}

// declare records the declaration of id as a kind.
func (a *analysis) declare(id *ast.Ident, kind bindKind) {
	sym := &symbol{name: id.Name, kind: kind, pos: id.Pos(), index: len(a.symbols)}
	if first, ok := a.scope[id.Name]; ok {
		sym.first = first
	} else {
		a.scope[id.Name] = sym
	}
	a.symbols = append(a.symbols, sym)
	a.byIdent[id] = sym
}

// plate records which variables of plate s shadow a global declared
// before it or a variable of the enclosing plates (outer's), and which
// repeat an earlier variable of s (first), resolves its range in outer and
// its body with its variables in scope, and analyses the plates nested in
// its body.
func (a *analysis) plate(s *ast.ForStmt, outer scopeAt) {
	a.resolve(s.Iter, outer)
	inner := outer
	inner.plates = outer.plates[:len(outer.plates):len(outer.plates)]
	for _, v := range s.Vars {
		if _, ok := a.scope[v.Name]; ok || hasPlateVar(outer.plates, v.Name) {
			a.shadows[v] = true
		}
		sym := &symbol{name: v.Name, kind: bLoop, pos: v.Pos(), index: len(inner.plates), plate: s}
		for _, w := range inner.plates[len(outer.plates):] {
			if w.name == v.Name {
				sym.first = w
				break
			}
		}
		inner.plates = append(inner.plates, sym)
		a.byIdent[v] = sym
	}
	for _, b := range s.Body {
		if f, ok := b.(*ast.ForStmt); ok {
			a.plate(f, inner)
		} else {
			a.resolveStmt(b, inner)
		}
	}
}

// hasPlateVar reports whether one of the plate variables vars is called
// name.
func hasPlateVar(vars []*symbol, name string) bool {
	for _, v := range vars {
		if v.name == name {
			return true
		}
	}
	return false
}

// declError is the error of the declaration of id, "" when there is none:
// a latent named like a builtin, or a name declared before.
func (a *analysis) declError(id *ast.Ident) string {
	sym := a.byIdent[id]
	if sym == nil {
		return ""
	}
	if sym.kind == bLatent && clashesWithBuiltin(sym.name) {
		return fmt.Sprintf("latent `%s` has the name of a builtin; choose another name", sym.name)
	}
	if sym.first != nil {
		return fmt.Sprintf("%s `%s` redeclared (first declared as %s at %s)", bindNames[sym.kind], sym.name, bindNames[sym.first.kind], a.fset.Position(sym.first.pos))
	}
	return ""
}

// plateVarError is the error of plate variable v, "" when there is none:
// it shadows a name in scope, or its plate declares its name before.
func (a *analysis) plateVarError(v *ast.Ident) string {
	if a.shadows[v] {
		return fmt.Sprintf("plate variable `%s` shadows a name already in scope", v.Name)
	}
	if sym := a.byIdent[v]; sym != nil && sym.first != nil {
		return fmt.Sprintf("plate variable `%s` redeclared (first declared at %s)", v.Name, a.fset.Position(sym.first.pos))
	}
	return ""
}

// params are the names the model declares as params first, which an
// override (--set) can name.
func (a *analysis) params() []string {
	var out []string
	for _, sym := range a.symbols {
		if sym.kind == bParam && sym.first == nil {
			out = append(out, sym.name)
		}
	}
	return out
}

// declaresParam reports whether a top-level param statement declares
// name (the first declaration of name or not): an override of name then
// has a param to apply to.
func (a *analysis) declaresParam(name string) bool {
	for _, sym := range a.symbols {
		if sym.kind == bParam && sym.name == name {
			return true
		}
	}
	return false
}

// clashesWithBuiltin reports whether a latent called name would hide a
// builtin. Result accessors (mean, b, logz, …) do not count: they are names
// only inside expect, which reads latents through them (mean(b[0])), so a
// model may call a latent b or mean.
func clashesWithBuiltin(name string) bool {
	for _, b := range stdlib.LookupAny(name) {
		if b.Kind != stdlib.Accessor {
			return true
		}
	}
	return false
}
