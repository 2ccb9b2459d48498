package ast

// Statements. Keyword positions (Model, Data, ...) are the first character of
// the statement; block statements record their braces.

// ModelStmt is `model NAME`.
type ModelStmt struct {
	Model Pos
	Name  *Ident
}

// ImportStmt is `import "path.fg"`.
type ImportStmt struct {
	Import Pos
	Path   *StringLit
}

// DataStmt is `data NAME: TYPE = EXPR` or `data NAME = EXPR` (Type nil).
type DataStmt struct {
	Data  Pos
	Name  *Ident
	Type  *TypeExpr // nil when inferred
	Value Expr
}

// ParamStmt is `param NAME = EXPR`.
type ParamStmt struct {
	Param Pos
	Name  *Ident
	Value Expr
}

// LatentStmt is `latent NAME: TYPE [~ DIST(args)]`.
type LatentStmt struct {
	Latent Pos
	Name   *Ident
	Type   *TypeExpr
	Prior  Expr // nil when absent; usually a *CallExpr
}

// TildeStmt is `EXPR ~ DIST(args)`: a likelihood when LHS is observed, a
// prior when it is latent.
type TildeStmt struct {
	LHS   Expr
	Tilde Pos
	Dist  Expr // usually a *CallExpr
}

// FactorStmt is `factor CALL`, e.g. `factor ising(x[i], x[j], J)` or
// `factor exp(-beta * hinge(m))`.
type FactorStmt struct {
	Factor Pos
	Call   *CallExpr
}

// ForStmt is a plate `for VARS in ITER { BODY }`. Vars has one element for
// `for i in 0..N` and `for b in batches(N, s)`, two or three for the tuple
// forms `for (i, j) in edges(G)` / `for (k, i, j) in edges(G)`, which set
// Tuple. Iter is a *RangeExpr or a *CallExpr.
type ForStmt struct {
	For    Pos
	Tuple  bool // vars written in parentheses
	Vars   []*Ident
	Iter   Expr
	Lbrace Pos
	Body   []Stmt
	Rbrace Pos // position of `}`
}

// Option is `key = value` inside the braces of infer and learn.
type Option struct {
	Key   *Ident
	Value Expr
}

// InferStmt is `infer METHOD [as LABEL] [{ key = value ... }]`.
type InferStmt struct {
	Infer   Pos
	Method  *Ident
	Label   *Ident // nil when no `as LABEL`
	Lbrace  Pos    // invalid when there is no option block
	Options []*Option
	Rbrace  Pos
}

// PredictStmt is `predict NAME = EXPR`.
type PredictStmt struct {
	Predict Pos
	Name    *Ident
	Value   Expr
}

// ExpectStmt is `expect EXPR [for LABEL]`.
type ExpectStmt struct {
	Expect Pos
	X      Expr
	Label  *Ident // nil when the check applies to every result
}

// LearnItem is `NAME` or `NAME in [LO, HI]` in a learn statement.
type LearnItem struct {
	Name   *Ident
	Lo, Hi Expr // both nil when unbounded
	Rbrack Pos  // position of `]` when bounded
}

// LearnStmt is `learn ITEM {, ITEM} [by METHOD] [{ options }]`.
type LearnStmt struct {
	Learn   Pos
	Items   []*LearnItem
	By      *Ident // nil when absent (`by evidence` is the default)
	Lbrace  Pos    // invalid when there is no option block
	Options []*Option
	Rbrace  Pos
}

// TypeExpr is a declared type `BASE[(K)][[D1, D2, ...]]`: real, spin, bool,
// int or cat(K), optionally with a shape.
type TypeExpr struct {
	Base   *Ident
	CatK   Expr // the K of cat(K); nil otherwise
	Rparen Pos  // `)` of cat(K)
	Dims   []Expr
	Lbrack Pos // invalid when there are no dims
	Rbrack Pos
}

func (s *ModelStmt) Pos() Pos   { return s.Model }
func (s *ImportStmt) Pos() Pos  { return s.Import }
func (s *DataStmt) Pos() Pos    { return s.Data }
func (s *ParamStmt) Pos() Pos   { return s.Param }
func (s *LatentStmt) Pos() Pos  { return s.Latent }
func (s *TildeStmt) Pos() Pos   { return s.LHS.Pos() }
func (s *FactorStmt) Pos() Pos  { return s.Factor }
func (s *ForStmt) Pos() Pos     { return s.For }
func (s *Option) Pos() Pos      { return s.Key.Pos() }
func (s *InferStmt) Pos() Pos   { return s.Infer }
func (s *PredictStmt) Pos() Pos { return s.Predict }
func (s *ExpectStmt) Pos() Pos  { return s.Expect }
func (s *LearnItem) Pos() Pos   { return s.Name.Pos() }
func (s *LearnStmt) Pos() Pos   { return s.Learn }
func (t *TypeExpr) Pos() Pos    { return t.Base.Pos() }

func (s *ModelStmt) End() Pos   { return s.Name.End() }
func (s *ImportStmt) End() Pos  { return s.Path.End() }
func (s *DataStmt) End() Pos    { return s.Value.End() }
func (s *ParamStmt) End() Pos   { return s.Value.End() }
func (s *TildeStmt) End() Pos   { return s.Dist.End() }
func (s *FactorStmt) End() Pos  { return s.Call.End() }
func (s *ForStmt) End() Pos     { return s.Rbrace.Advance(1) }
func (s *Option) End() Pos      { return s.Value.End() }
func (s *PredictStmt) End() Pos { return s.Value.End() }

// End is after the prior, or after the type when there is none.
func (s *LatentStmt) End() Pos {
	if s.Prior != nil {
		return s.Prior.End()
	}
	return s.Type.End()
}

// End is after the option block, the label or the method.
func (s *InferStmt) End() Pos {
	switch {
	case s.Rbrace.IsValid():
		return s.Rbrace.Advance(1)
	case s.Label != nil:
		return s.Label.End()
	}
	return s.Method.End()
}

// End is after the label or the expression.
func (s *ExpectStmt) End() Pos {
	if s.Label != nil {
		return s.Label.End()
	}
	return s.X.End()
}

// End is after the bounds or the name.
func (s *LearnItem) End() Pos {
	if s.Lo != nil {
		return s.Rbrack.Advance(1)
	}
	return s.Name.End()
}

// End is after the option block, `by METHOD`, or the last item.
func (s *LearnStmt) End() Pos {
	switch {
	case s.Rbrace.IsValid():
		return s.Rbrace.Advance(1)
	case s.By != nil:
		return s.By.End()
	case len(s.Items) > 0:
		return s.Items[len(s.Items)-1].End()
	}
	return s.Learn.Advance(len("learn"))
}

// End is after the shape, the `(K)` or the base name.
func (t *TypeExpr) End() Pos {
	switch {
	case t.Lbrack.IsValid():
		return t.Rbrack.Advance(1)
	case t.CatK != nil:
		return t.Rparen.Advance(1)
	}
	return t.Base.End()
}

func (*ModelStmt) stmtNode()   {}
func (*ImportStmt) stmtNode()  {}
func (*DataStmt) stmtNode()    {}
func (*ParamStmt) stmtNode()   {}
func (*LatentStmt) stmtNode()  {}
func (*TildeStmt) stmtNode()   {}
func (*FactorStmt) stmtNode()  {}
func (*ForStmt) stmtNode()     {}
func (*InferStmt) stmtNode()   {}
func (*PredictStmt) stmtNode() {}
func (*ExpectStmt) stmtNode()  {}
func (*LearnStmt) stmtNode()   {}

// Option returns the option with key name, or nil.
func (s *InferStmt) Option(name string) *Option { return findOption(s.Options, name) }

// Option returns the option with key name, or nil.
func (s *LearnStmt) Option(name string) *Option { return findOption(s.Options, name) }

func findOption(opts []*Option, name string) *Option {
	for _, o := range opts {
		if o.Key.Name == name {
			return o
		}
	}
	return nil
}
