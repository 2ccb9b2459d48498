package fg

import (
	"io/fs"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/session"
)

// Model is a loaded fg model with its param and data overrides. It keeps
// the source and recompiles it whenever an override changes, so every
// method sees a consistent model. A Model is not safe for concurrent use.
type Model struct{ s *session.Model }

// Overrides are what `fg run` applies before the first compilation: param
// values (--set NAME=VALUE), csv paths (--data NAME=PATH) and extra infer
// lines (--method SPEC).
type Overrides struct {
	Set     map[string]string
	Data    map[string]string
	Methods []string
	// Only compiles only the infer lines with these labels (`fg run
	// --only`): a line the model refuses does not stop the others. Run
	// then runs those lines (and the Methods).
	Only []string
}

// wrap turns a session model (or its error) into a Model.
func wrap(s *session.Model, err error) (*Model, error) {
	if err != nil {
		return nil, err
	}
	s.UseGoNames()
	return &Model{s}, nil
}

// Load reads and compiles the model file at path (an fg model or a libDAI
// factor-graph file). Errors are an ast.ErrorList with positions; render
// them with lang/diag.
func Load(path string) (*Model, error) { return wrap(session.Load(path)) }

// LoadFS reads and compiles the model at path in fsys; imports, csv and
// libDAI files are read from fsys too.
func LoadFS(fsys fs.FS, name string) (*Model, error) { return wrap(session.LoadFS(fsys, name)) }

// LoadBytes compiles a model given as source; name is used in positions and
// relative paths resolve against its folder in the OS file system.
func LoadBytes(name string, src []byte) (*Model, error) { return wrap(session.LoadBytes(name, src)) }

// LoadWith reads the model at path and compiles it once with the overrides
// applied (Load followed by Set calls would compile once per call, and fail
// if a default csv path only exists after the data override).
func LoadWith(path string, o Overrides) (*Model, error) {
	return wrap(session.LoadWith(path, o.session()))
}

// LoadSource compiles a model given as source with overrides applied; name
// is used in positions and relative paths resolve against its folder.
func LoadSource(name string, src []byte, o Overrides) (*Model, error) {
	return wrap(session.LoadSource(name, src, o.session()))
}

func (o Overrides) session() session.Overrides {
	return session.Overrides{Set: o.Set, Data: o.Data, Methods: o.Methods, Only: o.Only, Syntax: compile.GoSyntax}
}

// Set overrides param name with value, an fg expression such as "0.1" or
// "[1, 2]" (what `fg run --set name=value` does), and recompiles. On error
// the model is unchanged.
func (m *Model) Set(name, value string) error { return m.s.Set(name, value) }

// SetData replaces the csv path of data item name (`--data name=path`).
func (m *Model) SetData(name, path string) error { return m.s.SetData(name, path) }

// AddMethod adds an infer line given as its text after `infer`, e.g.
// "ep { divergence = alpha(0.8) }" or "bp as fbp" (`fg run --method SPEC`),
// labelled as a line appended to the file (docs/language.md, "Labels").
func (m *Model) AddMethod(spec string) error { return m.s.AddMethod(spec) }

// Name is the model's name (`model NAME`), or its file name without folder
// and extension.
func (m *Model) Name() string { return m.s.Name() }

// Filename is the name the model was loaded under.
func (m *Model) Filename() string { return m.s.Filename() }

// Source is the model's source text (nil for a libDAI file: it is read as a
// stream, not held).
func (m *Model) Source() []byte { return m.s.Source() }

// Overrides lists the current param overrides as "name=value", sorted.
func (m *Model) Overrides() []string { return m.s.Overrides() }

// Labels lists the labels of the model's infer lines in file order, then
// those added with AddMethod.
func (m *Model) Labels() []string { return m.s.Labels() }

// SummedStates names the discrete latents with elements that have no
// categorical prior (uniform_spin() or none) and returns Σ log K over those
// elements. When latents is not empty, a result's LogZ is log Σ_x Π_f f(x)
// over their states, the log partition function of the factors, not a
// normalised log p(y): under uniform priors on them, log p(y) = LogZ −
// logStates.
func (m *Model) SummedStates() (latents []string, logStates float64) {
	return m.s.Compiled().SummedStates()
}

// NumExpects is the number of expect statements in the model.
func (m *Model) NumExpects() int { return len(m.s.Compiled().Expects) }

// Warnings returns the model's compile-time warnings (an experimental
// message rule), each one line `file:line:col: message`.
func (m *Model) Warnings() []string {
	var out []string
	for _, w := range m.s.Compiled().Warnings {
		out = append(out, w.Error())
	}
	return out
}
