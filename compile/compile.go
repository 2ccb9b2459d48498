package compile

import (
	"io/fs"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// Options control a compilation.
type Options struct {
	// Set overrides params: NAME → an fg expression (as `--set NAME=VALUE`).
	// Naming a param the model does not declare is an error.
	Set map[string]string
	// Data overrides the path of a csv() data item: NAME → csv path. The
	// path is used as given (relative to the working directory, or to the
	// root of FS), not relative to the model file.
	Data map[string]string
	// FS, when non-nil, is where model files, imports, csv and libDAI files
	// are read from (paths are slash-separated and relative to its root).
	FS fs.FS
	// BaseDir is the folder relative paths in CompileSource resolve
	// against; empty means the folder of the filename.
	BaseDir string
	// Syntax is how the user wrote Set, Data and extra infer lines, so
	// that messages name what the user typed: fg run's --set, --data and
	// --method (the default), the Go API's Model.Set, SetData and
	// AddMethod, or the REPL's :set.
	Syntax OverrideSyntax
	// Only, when non-empty, lists the labels of the infer lines to compile
	// (`fg run --only`): the others are labelled but not checked against
	// the model (a method the model refuses does not stop the others) and
	// land in Model.Skipped.
	Only []string
	// MethodsReplaceDefaults tells that extra infer lines (--method,
	// AddMethod) replace a libDAI file's default infer lines (bp and
	// exact), which are then neither added nor checked.
	MethodsReplaceDefaults bool

	maxCovBytes float64 // tests only: a smaller covariance limit
	unrolled    bool    // tests only: unroll every plate (no vector plates)
	perElement  bool    // tests only: convert the conditionals one at a time (no conditionalColumns)

	// files are parsed files by name, used instead of parsing again
	// (Model.Recompile, LearnFunc.Model), with fset holding their
	// positions; values override params with numbers, before Set.
	files  map[string]*ast.File
	fset   *ast.FileSet
	values map[string]float64
}

// OverrideSyntax is how overrides of params, data and infer lines were
// written.
type OverrideSyntax int

const (
	FlagSyntax OverrideSyntax = iota // fg run --set NAME=V, --data NAME=PATH, --method SPEC
	GoSyntax                         // Model.Set, SetData, AddMethod
	REPLSyntax                       // the REPL's :set NAME=V
)

// bindKind says what a name in scope denotes.
type bindKind int

const (
	bParam bindKind = iota
	bData
	bLatent
	bLoop
)

var bindNames = [...]string{"param", "data", "latent", "loop variable"}

// binding is the value of a name in scope (where the name is declared is
// the symbol table's: analysis); a global declaration's is in its slot
// (compiler.slots), a plate variable's in its slot of compiler.locals.
type binding struct {
	kind bindKind
	v    val
	lat  int // bLatent: index into Graph.Latents
	// poisoned marks the name of a declaration that failed: uses of it
	// abandon their statement silently, since the declaration's error
	// already explains them (no cascade of "undefined" errors).
	poisoned bool
	// declared marks a binding made by a declaration that lowered (not a
	// poisoned stand-in for one that failed before binding its name, nor a
	// param bound from outside the model's text): the names an undefined
	// one may be a typo of.
	declared bool
}

// compiler holds the state of one compilation.
type compiler struct {
	opt        Options
	check      bool // Check mode: skip Gram matrices
	m          *Model
	fset       *ast.FileSet // the positions of every file read (Model.Fset)
	errs       ast.ErrorList
	slots      []*binding // the bindings of an's global declarations, by symbol index (nil: not bound)
	recent     recentUses // the last resolutions read, by position
	locals     []local
	sources    map[string][]byte    // file name → source, for labels and options
	prior      map[int]*priorDecl   // latent index → its prior
	priorTried map[int]bool         // latents whose prior was attempted
	sites      map[int][]graph.Site // latent index → likelihood sites
	batches    map[int][]graph.BatchFactor
	streams    map[int][]graph.StreamSites   // latent index → libsvm plates
	libsvm     map[string]*stdlib.LibSVMInfo // libsvm files read, by path
	allIDs     map[int][]int                 // latent → ids of all its elements
	nUnroll    int                           // factors produced, against the limit
	offGraph   graph.Column[int]             // the numbers of the factors Graph does not hold, increasing (nextFactor)
	nBranches  int64                         // branches of gated likelihoods, against the memory budget
	nIter      int                           // plate iterations run, against maxIterations
	plates     []plateAt                     // the plates being unrolled, outermost first (plate_grow.go)
	bound      map[*ast.CallExpr]*args       // the bindings of the calls compiled (bind)
	curData    string                        // the data item being defined (for Options.Data)
	dataUsed   map[string]bool               // Options.Data entries that matched
	lf         *learnRec                     // nil without a learn statement
	jet        *jetState                     // non-nil while differentiating in the learned params (learn_jets.go)
	fg         fgState                       // factor-graph constructs (conditional.go)
	gate       gateRec                       // gated likelihoods (gate.go)
	ints       []float64                     // 0, 1, 2, ...: shared backing of plate index values (plate_values.go)
	sitesMade  map[*ast.CallExpr]*madeSite   // the last site each likelihood call made (site_cache.go)
	siteVals   []float64                     // makeSite's scratch space
	net        *netState                     // non-nil when the model lowers to a graph.Net (net.go)
	vec        *vecPlate                     // the plate compiled as one vector statement (plate_vector.go)

	// an is what semantic analysis decided from the text alone: the
	// files, the declarations and their errors, the plate scopes, the
	// declaration each name used names (sema.go, resolve.go); slots hold
	// the values lowering binds to the global declarations, locals those
	// of the plate variables in scope, each at its symbol's index.
	an *analysis

	// modelFailed is set when the model's statements had errors before
	// its infer lines are checked: its structure is then not the one
	// written, and no infer line is refused for it (one mistake, one
	// message).
	modelFailed bool
}

// abort unwinds the current statement after an error was recorded.
type abort struct{}

// errorf records an error spanning node.
func (c *compiler) errorf(n ast.Node, format string, args ...any) {
	c.errAt(n.Pos(), n.End(), format, args...)
}

// errAt records an error spanning [pos, end).
func (c *compiler) errAt(pos, end ast.Pos, format string, args ...any) {
	c.errs.Add(c.fset.Position(pos), c.fset.Position(end), format, args...)
}

// warn records a warning spanning node: the model compiles, but the user
// should know (an experimental rule).
func (c *compiler) warn(n ast.Node, format string, args ...any) {
	c.m.Warnings.Add(c.fset.Position(n.Pos()), c.fset.Position(n.End()), format, args...)
}

// filename is the name of the file holding p ("" when p is unknown).
func (c *compiler) filename(p ast.Pos) string {
	if f := c.fset.File(p); f != nil {
		return f.Name()
	}
	return ""
}

// fail records an error and abandons the current statement.
func (c *compiler) fail(n ast.Node, format string, args ...any) {
	c.errorf(n, format, args...)
	panic(abort{})
}

// guard runs f, turning an abort into a return so that compilation goes on
// with the next statement; it reports whether f was abandoned (an error, or
// a use of a poisoned name). Past ast.MaxErrors errors, f is skipped.
func (c *compiler) guard(f func()) (aborted bool) {
	if len(c.errs) > ast.MaxErrors {
		return true
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abort); !ok {
				panic(r)
			}
			aborted = true
		}
	}()
	f()
	return false
}

// newCompiler starts a compilation in a new file set, or in opt's (a
// recompilation from parsed files).
func newCompiler(opt Options) *compiler {
	fset := opt.fset
	if fset == nil {
		fset = ast.NewFileSet()
	}
	c := &compiler{
		opt:        opt,
		fset:       fset,
		m:          &Model{Fset: fset, Graph: &graph.Graph{Fset: fset}, Params: map[string]Value{}, Data: map[string]Value{}},
		sources:    map[string][]byte{},
		prior:      map[int]*priorDecl{},
		priorTried: map[int]bool{},
		sites:      map[int][]graph.Site{},
		batches:    map[int][]graph.BatchFactor{},
		streams:    map[int][]graph.StreamSites{},
		libsvm:     map[string]*stdlib.LibSVMInfo{},
		allIDs:     map[int][]int{},
		dataUsed:   map[string]bool{},
		fg:         fgState{proj: map[int]map[int]lin{}, tried: map[int]int{}, done: map[int]int{}},
	}
	c.setAnalysis(newAnalysis(fset, nil))
	return c
}

// setAnalysis makes a the table of the names lowering binds, none bound.
func (c *compiler) setAnalysis(a *analysis) {
	c.an, c.slots = a, make([]*binding, len(a.symbols))
	c.recent = recentUses{}
}

// recentUses caches the resolutions lowering reads (analysis.uses),
// direct-mapped by position: a plate's body evaluates the same few names
// once per element, and a hit costs no map lookup.
type recentUses [64]struct {
	id  *ast.Ident
	sym *symbol
}

// globalNamed is the binding of the global called name, nil when it has
// none (not declared, or not bound yet).
func (c *compiler) globalNamed(name string) *binding {
	if sym := c.an.scope[name]; sym != nil {
		return c.slots[sym.index]
	}
	return nil
}

// local is a plate variable in scope: its declaration and its binding.
type local struct {
	sym *symbol
	b   *binding
}

// localNamed is the binding of the plate variable in scope called name
// (innermost first), nil when there is none.
func (c *compiler) localNamed(name string) *binding {
	for i := len(c.locals) - 1; i >= 0; i-- {
		if c.locals[i].sym.name == name {
			return c.locals[i].b
		}
	}
	return nil
}

// lookup finds a name that is not a resolved use (a called function's,
// a name in a check of the text) by the rule of resolution: loop
// variables (innermost first), then globals.
func (c *compiler) lookup(name string) (*binding, bool) {
	if b := c.localNamed(name); b != nil {
		return b, true
	}
	b := c.globalNamed(name)
	return b, b != nil
}

// resolved is the binding of the declaration semantic analysis resolved
// the name id to (resolve.go), nil when it resolved to none — or to a
// declaration lowering has not bound.
func (c *compiler) resolved(id *ast.Ident) *binding {
	e := &c.recent[uint(id.NamePos)%uint(len(c.recent))]
	if e.id != id {
		e.id, e.sym = id, c.an.uses[id]
	}
	sym := e.sym
	switch {
	case sym == nil:
		return nil
	case sym.kind == bLoop:
		if sym.index < len(c.locals) && c.locals[sym.index].sym == sym {
			return c.locals[sym.index].b
		}
		return nil // its plate is not being lowered: a use evaluated again without it
	}
	return c.slots[sym.index]
}

// lowered reports whether the global declaration sym lowered: its
// declaration bound its name (and may have failed after, as a latent's
// prior can).
func (c *compiler) lowered(sym *symbol) bool {
	b := c.slots[sym.index]
	return b != nil && b.declared
}

// poison marks the name of a failed data, param or latent declaration (a
// latent whose prior failed, or a declaration that read a poisoned name),
// binding it if nothing else holds it, so that its uses raise no further
// errors: one mistake, one message. A redeclaration that failed leaves
// the first declaration's binding as it is.
func (c *compiler) poison(s ast.Stmt) {
	var id *ast.Ident
	switch s := s.(type) {
	case *ast.DataStmt:
		id = s.Name
	case *ast.ParamStmt:
		id = s.Name
	case *ast.LatentStmt:
		id = s.Name
	default:
		return
	}
	sym := c.an.byIdent[id]
	if sym == nil || sym.first != nil {
		return
	}
	if b := c.slots[sym.index]; b != nil {
		b.poisoned = true // declared by s before it failed
		return
	}
	c.slots[sym.index] = &binding{kind: sym.kind, poisoned: true}
}

// poisonOnAbort, deferred by a statement that gives latent lat a prior or
// conditionals, poisons lat when the statement is abandoned: the later
// uses of lat, and the checks that it has a prior, would only repeat its
// error.
func (c *compiler) poisonOnAbort(lat int) {
	if r := recover(); r != nil {
		if _, ok := r.(abort); ok {
			if b := c.globalNamed(c.m.Graph.Latents[lat].Name); b != nil && b.kind == bLatent && b.lat == lat {
				b.poisoned = true
			}
		}
		panic(r)
	}
}

// poisoned reports whether latent lat's name is poisoned (poisonOnAbort).
func (c *compiler) poisoned(lat int) bool {
	b := c.globalNamed(c.m.Graph.Latents[lat].Name)
	return b != nil && b.kind == bLatent && b.lat == lat && b.poisoned
}

// declare binds a declared name to its value when semantic analysis found
// its declaration sound, and reports analysis's error for it otherwise.
func (c *compiler) declare(id *ast.Ident, b *binding) bool {
	if msg := c.an.declError(id); msg != "" {
		c.errorf(id, "%s", msg)
		return false
	}
	b.declared = true
	c.slots[c.an.byIdent[id].index] = b
	return true
}

// text returns the source text of a node.
func (c *compiler) text(n ast.Node) string {
	f := c.fset.File(n.Pos())
	if f == nil {
		return "?"
	}
	src := c.sources[f.Name()]
	p, e := f.Offset(n.Pos()), f.Offset(n.End())
	if src == nil || p < 0 || e > len(src) || p > e {
		return "?"
	}
	return string(src[p:e])
}
