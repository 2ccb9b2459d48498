package session

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
)

// Model is a loaded fg model with its param and data overrides. It keeps
// the source and recompiles it whenever an override changes, so every
// method sees a consistent compiled model. A Model is not safe for
// concurrent use.
type Model struct {
	name     string // file name used in positions
	src      []byte
	libdai   bool  // a libDAI file, read as a stream at each compile (src nil)
	fsys     fs.FS // nil: the OS file system
	set      map[string]string
	data     map[string]string
	methods  []string               // extra infer lines (--method SPEC)
	only     []string               // the infer lines compiled (--only LABEL), nil for all
	syntax   compile.OverrideSyntax // how the overrides were written (compile.Options.Syntax)
	compiled *compile.Model
	extra    []*compile.InferSpec // the compiled --method lines
}

// Overrides are what `fg run` applies before the first compilation: param
// values (--set), csv paths (--data), extra infer lines (--method) and the
// labels of the infer lines to compile (--only; compile.Options.Only).
type Overrides struct {
	Set     map[string]string
	Data    map[string]string
	Methods []string
	Only    []string
	// Syntax is how the overrides were written (fg run's flags, the Go
	// API's calls or the REPL's commands): messages name what the user
	// typed.
	Syntax compile.OverrideSyntax
}

// LoadWith reads the model at path and compiles it once with the overrides
// applied (Load followed by Set calls would compile once per call, and fail
// if a default csv path only exists after --data).
func LoadWith(path string, o Overrides) (*Model, error) {
	src, libdai, err := safefile.ReadModelOrLibDAI(nil, path, compile.IsLibDAI)
	if err != nil {
		return nil, fileError(path, err)
	}
	m := &Model{name: path, src: src, libdai: libdai, set: copyMap(o.Set), data: copyMap(o.Data), methods: append([]string(nil), o.Methods...),
		only: append([]string(nil), o.Only...), syntax: o.Syntax}
	if err := m.recompile(); err != nil {
		return nil, err
	}
	return m, nil
}

// LoadSource compiles a model given as source with overrides applied; name
// is used in positions and relative paths resolve against its folder.
func LoadSource(name string, src []byte, o Overrides) (*Model, error) {
	m := &Model{name: name, src: append([]byte(nil), src...), set: copyMap(o.Set), data: copyMap(o.Data),
		methods: append([]string(nil), o.Methods...), only: append([]string(nil), o.Only...), syntax: o.Syntax}
	if err := m.recompile(); err != nil {
		return nil, err
	}
	return m, nil
}

func copyMap(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		out[k] = v
	}
	return out
}

// Load reads and compiles the model file at path (an fg model or a libDAI
// factor-graph file). Errors are an ast.ErrorList with positions; render
// them with lang/diag.
func Load(path string) (*Model, error) {
	src, libdai, err := safefile.ReadModelOrLibDAI(nil, path, compile.IsLibDAI)
	if err != nil {
		return nil, fileError(path, err)
	}
	return newModel(path, src, libdai, nil)
}

// LoadFS reads and compiles the model at path in fsys; imports, csv and
// libDAI files are read from fsys too.
func LoadFS(fsys fs.FS, name string) (*Model, error) {
	src, libdai, err := safefile.ReadModelOrLibDAI(fsys, name, compile.IsLibDAI)
	if err != nil {
		return nil, fileError(name, err)
	}
	return newModel(name, src, libdai, fsys)
}

// LoadBytes compiles a model given as source; name is used in positions and
// relative paths resolve against its folder in the OS file system.
func LoadBytes(name string, src []byte) (*Model, error) {
	return newModel(name, append([]byte(nil), src...), false, nil)
}

func fileError(name string, err error) error {
	p := ast.Position{Filename: name}
	msg := err.Error()
	if errors.Is(err, fs.ErrNotExist) {
		msg = "no such file"
	}
	return ast.ErrorList{{Pos: p, End: p, Msg: "cannot read model: " + msg}}
}

func newModel(name string, src []byte, libdai bool, fsys fs.FS) (*Model, error) {
	m := &Model{name: name, src: src, libdai: libdai, fsys: fsys, set: map[string]string{}, data: map[string]string{}}
	if err := m.recompile(); err != nil {
		return nil, err
	}
	return m, nil
}

// recompile compiles the source with the current overrides.
func (m *Model) recompile() error {
	opt := compile.Options{Set: m.set, Data: m.data, FS: m.fsys, Only: m.only, Syntax: m.syntax, MethodsReplaceDefaults: len(m.methods) > 0}
	var cm *compile.Model
	var err error
	if m.libdai {
		cm, err = compile.CompileLibDAI(m.name, opt)
	} else {
		cm, err = compile.CompileSource(m.name, m.src, opt)
	}
	if err != nil {
		return err
	}
	extra, err := compileMethods(cm, m.libdai || compile.IsLibDAI(m.src), m.methods)
	if err != nil {
		return err
	}
	m.compiled, m.extra = cm, extra
	return nil
}

// UseGoNames makes the messages of later overrides name the Go API's calls
// (Set, SetData, AddMethod) instead of fg run's flags (Overrides.Syntax).
func (m *Model) UseGoNames() { m.syntax = compile.GoSyntax }

// try applies an override change and recompiles; on error the change is
// undone and the previous compiled model kept.
func (m *Model) try(apply, undo func()) error {
	apply()
	if err := m.recompile(); err != nil {
		undo()
		return err
	}
	return nil
}

// Set overrides param name with value, an fg expression such as "0.1" or
// "[1, 2]" (what `fg run --set name=value` does), and recompiles.
func (m *Model) Set(name, value string) error {
	old, had := m.set[name]
	return m.try(func() { m.set[name] = value }, func() { restore(m.set, name, old, had) })
}

// SetData replaces the csv path of data item name (`--data name=path`).
func (m *Model) SetData(name, path string) error {
	old, had := m.data[name]
	return m.try(func() { m.data[name] = path }, func() { restore(m.data, name, old, had) })
}

// AddMethod adds an infer line given as its text after `infer`, e.g.
// "ep { divergence = alpha(0.8) }" or "bp" (`fg run --method SPEC`).
func (m *Model) AddMethod(spec string) error {
	n := len(m.methods)
	return m.try(func() { m.methods = append(m.methods, spec) }, func() { m.methods = m.methods[:n] })
}

func restore(mp map[string]string, k, old string, had bool) {
	if had {
		mp[k] = old
	} else {
		delete(mp, k)
	}
}

// Name is the model's name (`model NAME`), or its file name without folder
// and extension.
func (m *Model) Name() string {
	if m.compiled != nil && m.compiled.Name != "" {
		return m.compiled.Name
	}
	return strings.TrimSuffix(path.Base(m.name), path.Ext(m.name))
}

// Filename is the name the model was loaded under.
func (m *Model) Filename() string { return m.name }

// Source is the model's source text (nil for a libDAI file, which is read
// as a stream and not held).
func (m *Model) Source() []byte { return m.src }

// Compiled is the compiled model (graph, blocks, infer/predict/expect specs).
func (m *Model) Compiled() *compile.Model { return m.compiled }

// Overrides lists the current --set overrides as "name=value", sorted.
func (m *Model) Overrides() []string {
	var out []string
	for k, v := range m.set {
		out = append(out, fmt.Sprintf("%s=%s", k, v))
	}
	sort.Strings(out)
	return out
}

// Labels lists the labels of the model's infer lines in file order, then
// those added with AddMethod.
func (m *Model) Labels() []string {
	var out []string
	for _, s := range m.Infers() {
		out = append(out, s.Label)
	}
	return out
}

// Infers lists the infer specs Run executes: the model's, then the extra
// ones added with AddMethod (or Overrides.Methods).
func (m *Model) Infers() []*compile.InferSpec {
	return append(append([]*compile.InferSpec(nil), m.compiled.Infers...), m.extra...)
}
