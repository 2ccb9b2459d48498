package compile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
)

// CompileFile reads and compiles the model file at path (from opt.FS when it
// is set). A libDAI factor-graph file (detected by content: its first
// non-comment line is a single integer) is compiled by CompileLibDAI.
// Errors are an ast.ErrorList.
func CompileFile(path string, opt Options) (*Model, error) {
	src, libdai, err := safefile.ReadModelOrLibDAI(opt.FS, path, IsLibDAI)
	if libdai {
		return CompileLibDAI(path, opt)
	}
	if err != nil {
		p := ast.Position{Filename: path}
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: fmt.Sprintf("cannot read model: %v", notExist(err))}}
	}
	return CompileSource(path, src, opt)
}

// CompileSource compiles a model given its source; filename is used in
// positions and, unless opt.BaseDir is set, its folder is where relative
// paths (imports, csv, libdai) are resolved.
func CompileSource(filename string, src []byte, opt Options) (*Model, error) {
	return compileSource(filename, src, opt, false)
}

// Check compiles a model for `fg check`: every name, type, shape, data file
// and option is checked, but the Gram matrices of gp()/tp() priors are not
// computed (Prior.Cov is nil for them).
func Check(filename string, src []byte, opt Options) (*Model, error) {
	return compileSource(filename, src, opt, true)
}

func compileSource(filename string, src []byte, opt Options, check bool) (m *Model, err error) {
	start := ast.Position{Filename: filename, Line: 1, Column: 1}
	var errs ast.ErrorList
	defer func() {
		if r := recover(); r != nil {
			errs.Add(start, start, "internal compiler error: %v\n%s", r, debug.Stack())
			m, err = nil, errs
		}
	}()
	if IsLibDAI(src) {
		return compileLibDAISource(filename, src, opt)
	}
	c := newCompiler(opt)
	c.check = check
	c.run(filename, src)
	errs = c.errs
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs.Truncate()
	}
	c.m.opt, c.m.src, c.m.filename = opt, src, filename
	c.m.opt.files, c.m.opt.fset, c.m.opt.values = nil, nil, nil
	c.saveLearn()
	if c.m.learn != nil && opt.values == nil { // not a recompilation at learned values
		c.m.learnWarnings()
	}
	return c.m, nil
}

// run compiles the root file: its imports are read, then the files are
// analysed (sema.go), then the model statements are lowered in order,
// then the blocks are built, then the infer/predict/expect/learn lines
// are compiled.
func (c *compiler) run(filename string, src []byte) {
	compiles.Add(1)
	f := c.parse(filename, src, nil)
	if f == nil {
		return
	}
	c.m.Name = strings.TrimSuffix(filepath.Base(filename), filepath.Ext(filename))
	c.setAnalysis(c.analyseFiles(filename, f))
	c.lf = newLearnRec(f)
	if c.an.net {
		c.net = newNetState()
	}
	c.modelStmts(f, true)
	c.checkSetUsed(f)
	c.buildBlocks()
	c.lf.close()
	c.resultStmts(f)
}

// Recompile compiles the model again with the params in set overriding
// (as --set would, on top of the original overrides), from its parsed
// files. Learning does not use it: see LearnFunc.
func (m *Model) Recompile(set map[string]string) (*Model, error) {
	return m.at(set, nil)
}

// at compiles the model again from its parsed files with set merged into
// its --set overrides and the params in values bound to those numbers.
func (m *Model) at(set map[string]string, values map[string]float64) (*Model, error) {
	opt := m.opt
	opt.Set = maps.Clone(opt.Set)
	if opt.Set == nil {
		opt.Set = map[string]string{}
	}
	maps.Copy(opt.Set, set)
	opt.values = values
	if m.libdaiFile {
		return CompileLibDAI(m.filename, opt)
	}
	opt.files = map[string]*ast.File{}
	var files []*ast.SourceFile
	for _, f := range m.Files {
		opt.files[f.Filename] = f
		files = append(files, m.Fset.File(f.Pos()))
	}
	opt.fset = m.Fset.Subset(files...) // the parsed files only: the set does not grow from one recompilation to the next
	return CompileSource(m.filename, m.src, opt)
}

// parse parses a file and records its source; parse errors are added.
func (c *compiler) parse(filename string, src []byte, at ast.Node) *ast.File {
	c.sources[filename] = src
	if f := c.opt.files[filename]; f != nil {
		c.m.Files = append(c.m.Files, f)
		return f
	}
	if len(src) > safefile.MaxModel {
		p := ast.Position{Filename: filename}
		c.errs.Add(p, p, "model file of %d bytes: fg reads at most %d MiB of fg source; put large data in a csv file", len(src), safefile.MaxModel>>20)
		return nil
	}
	f, err := parser.ParseFile(c.fset, filename, src)
	if err != nil {
		var list ast.ErrorList
		if errors.As(err, &list) {
			c.errs = append(c.errs, list...)
		} else if at != nil {
			c.errorf(at, "%v", err)
		} else {
			p := ast.Position{Filename: filename}
			c.errs.Add(p, p, "%v", err)
		}
		return nil
	}
	c.m.Files = append(c.m.Files, f)
	return f
}

// modelStmts lowers the model statements of a file in order, those of an
// imported file where its import statement stands. Imported files
// contribute only data, param, latent, factor, ~ and for statements.
func (c *compiler) modelStmts(f *ast.File, root bool) {
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *ast.ModelStmt:
			if root {
				c.m.Name = s.Name.Name
			}
		case *ast.ImportStmt:
			if g := c.an.imports[s]; g != nil {
				c.modelStmts(g, false)
			}
		case *ast.InferStmt, *ast.PredictStmt, *ast.ExpectStmt, *ast.LearnStmt:
			// result statements: the root file's are handled after the blocks.
		default:
			if c.guard(func() { c.modelStmt(s) }) {
				c.poison(s)
			}
		}
	}
}

// analyseFiles reads the files the root file f (read from filename)
// imports and analyses them all.
func (c *compiler) analyseFiles(filename string, f *ast.File) *analysis {
	imports := map[*ast.ImportStmt]*ast.File{}
	c.loadImports(f, []string{c.canonical(filename)}, imports)
	return analyse(c.fset, f, imports)
}

// loadImports reads and parses, depth first, the files f imports, each
// once, recording in imports the file each import statement brings in;
// stack is the chain of files being loaded, f's last (cycle detection).
func (c *compiler) loadImports(f *ast.File, stack []string, imports map[*ast.ImportStmt]*ast.File) {
	for _, s := range f.Stmts {
		if s, ok := s.(*ast.ImportStmt); ok {
			c.guard(func() { c.importFile(s, stack, imports) })
		}
	}
}

// importFile loads path relative to the importing file, rejecting cycles.
func (c *compiler) importFile(s *ast.ImportStmt, stack []string, imports map[*ast.ImportStmt]*ast.File) {
	p := c.resolve(c.filename(s.Pos()), s.Path.Value)
	key := c.canonical(p)
	for i, l := range stack {
		if l == key {
			chain := append(append([]string(nil), stack[i:]...), key)
			c.fail(s.Path, "import cycle: %s", strings.Join(chain, " → "))
		}
	}
	for _, f := range c.m.Files {
		if c.canonical(f.Filename) == key {
			return // already imported (a diamond): declarations exist once
		}
	}
	src, err := readFile(c.opt.FS, p)
	if err != nil {
		c.fail(s.Path, "import %q: %v", s.Path.Value, notExist(err))
	}
	if IsLibDAI(src) {
		c.fail(s.Path, "import %q: a libDAI file cannot be imported; use data G = libdai(%q)", s.Path.Value, s.Path.Value)
	}
	g := c.parse(p, src, s.Path)
	if g == nil {
		return
	}
	imports[s] = g
	c.loadImports(g, append(stack[:len(stack):len(stack)], key), imports)
}

// resolve makes a path in a model file relative to that file's folder (or
// opt.BaseDir for the root file of CompileSource).
func (c *compiler) resolve(from, p string) string {
	if c.opt.FS != nil {
		if path.IsAbs(p) {
			return strings.TrimPrefix(path.Clean(p), "/")
		}
		return path.Join(c.baseDir(from), p)
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.baseDir(from), p)
}

func (c *compiler) baseDir(from string) string {
	if c.opt.BaseDir != "" && (len(c.m.Files) == 0 || from == c.m.Files[0].Filename) {
		return c.opt.BaseDir
	}
	if c.opt.FS != nil {
		return path.Dir(from)
	}
	return filepath.Dir(from)
}

func (c *compiler) canonical(p string) string {
	if c.opt.FS != nil {
		return path.Clean(p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// readFile reads a model, import or libDAI file, refusing special files
// and files over safefile.MaxSource (safefile.MaxLibDAI for libDAI text).
func readFile(fsys fs.FS, p string) ([]byte, error) {
	return safefile.ReadModel(fsys, p, IsLibDAI)
}

func notExist(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("file not found")
	}
	return err
}

// IsLibDAI reports whether src is a libDAI factor-graph file: its first line
// that is neither empty nor a `#` comment is a single non-negative integer
// (the factor count). No fg model starts that way.
func IsLibDAI(src []byte) bool {
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	for line := range bytes.Lines(src) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		for _, ch := range t {
			if ch < '0' || ch > '9' {
				return false
			}
		}
		return true
	}
	return false
}
