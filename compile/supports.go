package compile

import (
	"fmt"

	"github.com/fg-infer/fg/lang/ast"
)

// Diagnostic is a refusal of an infer line by the engine that would run
// it, or with Warning a caution (an experimental rule), spanning the part
// of the line it is about: the method, an option's value, or the line.
type Diagnostic struct {
	Pos, End ast.Position
	Msg      string
	Warning  bool
}

func (d Diagnostic) String() string { return fmt.Sprintf("%s: %s", d.Pos, d.Msg) }

// Supports checks infer line spec of m against the engine that serves it
// (Model.Engine): the engine's Supports, which composes the method's
// checks (the rule of every factor kind under the method and divergence,
// the memory of kept draws, the options of FITC, libsvm and sharded
// models) with the engine's schedules, families, schemes and size limits.
// It settles the options the engine fixes (gated likelihoods and libsvm
// sites run under family = factorized; libsvm sites without approx take
// gh). compile runs it on every infer line and --method string, so a
// compiled line has no error diagnostics; refusals after the first that
// makes the rest meaningless are not reported. spec must come from
// compile (its positions are those of its line).
func (m *Model) Supports(spec *InferSpec) []Diagnostic {
	if spec.stmt == nil {
		p := m.Fset.Position(spec.Pos)
		return []Diagnostic{{Pos: p, End: p, Msg: "infer line without its source"}}
	}
	c := newCompiler(Options{fset: m.Fset})
	cp := *m
	cp.Warnings = nil
	c.m = &cp
	c.guard(func() { c.supports(spec.stmt, spec) })
	var out []Diagnostic
	for _, e := range c.errs {
		out = append(out, Diagnostic{Pos: e.Pos, End: e.End, Msg: e.Msg})
	}
	for _, e := range cp.Warnings {
		out = append(out, Diagnostic{Pos: e.Pos, End: e.End, Msg: e.Msg, Warning: true})
	}
	return out
}

// supports runs Supports' check of infer line s on the compiler's model,
// reporting on c: the Supports of the engine that serves the line, or the
// refusal of a line no engine serves.
func (c *compiler) supports(s *ast.InferStmt, spec *InferSpec) {
	ck := &Checker{c: c, Line: s, Spec: spec}
	eng, err := EngineFor(spec.Method, c.structure())
	if err != nil {
		c.refuseLine(ck, err)
		return
	}
	ck.eng = eng
	eng.Supports(ck)
}
