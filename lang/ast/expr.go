package ast

// Expressions. Every node records the positions of its own tokens so that
// Pos and End are exact spans [Pos, End) usable for carets in diagnostics.

// Ident is a name: a variable, function, method, option key or label.
type Ident struct {
	NamePos Pos
	Name    string
}

// NumberLit is a numeric literal. Text is the literal as written ("1e-3",
// ".5"), Value its float64 value.
type NumberLit struct {
	ValuePos Pos
	Text     string
	Value    float64
}

// StringLit is a double-quoted string literal. Raw is the literal as written
// including the quotes and escapes, Value the unquoted string.
type StringLit struct {
	ValuePos Pos
	Raw      string
	Value    string
}

// BoolLit is `true` or `false`.
type BoolLit struct {
	ValuePos Pos
	Value    bool
}

// ListLit is `[e1, e2, ...]`; nested lists write matrices.
type ListLit struct {
	Lbrack Pos
	Elems  []Expr
	Rbrack Pos // position of `]`
}

// UnaryExpr is `-X` or `not X`.
type UnaryExpr struct {
	OpPos Pos
	Op    Op // OpNeg or OpNot
	X     Expr
}

// BinaryExpr is `X op Y`.
type BinaryExpr struct {
	X     Expr
	OpPos Pos
	Op    Op
	Y     Expr
}

// NamedArg is a keyword argument `name = value` in a call.
type NamedArg struct {
	Name  *Ident
	Value Expr
}

// CallExpr is `Fun(Args..., Named...)`. Positional arguments always come
// before named ones.
type CallExpr struct {
	Fun    Expr
	Lparen Pos
	Args   []Expr
	Named  []*NamedArg
	Rparen Pos // position of `)`
}

// IndexExpr is `X[i]`, `X[i, j]`, `X[:, 1]`, `X[0:10]`; an index may be a
// *SliceExpr.
type IndexExpr struct {
	X       Expr
	Lbrack  Pos
	Indices []Expr
	Rbrack  Pos // position of `]`
}

// SliceExpr is `Lo:Hi` inside an index; Lo and/or Hi may be nil (`:`, `a:`,
// `:b`). It is only valid as an element of IndexExpr.Indices.
type SliceExpr struct {
	Lo    Expr // may be nil
	Colon Pos
	Hi    Expr // may be nil
}

// SelectorExpr is `X.Sel`, e.g. `exact.mean` (a result qualified by label).
type SelectorExpr struct {
	X   Expr
	Sel *Ident
}

// RangeExpr is the half-open integer range `Lo..Hi` of a for plate.
type RangeExpr struct {
	Lo    Expr
	OpPos Pos // position of `..`
	Hi    Expr
}

// ParenExpr is `(X)`. The printer keeps the parentheses the user wrote.
type ParenExpr struct {
	Lparen Pos
	X      Expr
	Rparen Pos // position of `)`
}

func (x *Ident) Pos() Pos        { return x.NamePos }
func (x *NumberLit) Pos() Pos    { return x.ValuePos }
func (x *StringLit) Pos() Pos    { return x.ValuePos }
func (x *BoolLit) Pos() Pos      { return x.ValuePos }
func (x *ListLit) Pos() Pos      { return x.Lbrack }
func (x *UnaryExpr) Pos() Pos    { return x.OpPos }
func (x *BinaryExpr) Pos() Pos   { return x.X.Pos() }
func (x *NamedArg) Pos() Pos     { return x.Name.Pos() }
func (x *CallExpr) Pos() Pos     { return x.Fun.Pos() }
func (x *IndexExpr) Pos() Pos    { return x.X.Pos() }
func (x *SelectorExpr) Pos() Pos { return x.X.Pos() }
func (x *RangeExpr) Pos() Pos    { return x.Lo.Pos() }
func (x *ParenExpr) Pos() Pos    { return x.Lparen }

// Pos is Lo's start, or the colon when Lo is absent.
func (x *SliceExpr) Pos() Pos {
	if x.Lo != nil {
		return x.Lo.Pos()
	}
	return x.Colon
}

func (x *Ident) End() Pos        { return x.NamePos.Advance(len(x.Name)) }
func (x *NumberLit) End() Pos    { return x.ValuePos.Advance(len(x.Text)) }
func (x *StringLit) End() Pos    { return x.ValuePos.Advance(len(x.Raw)) }
func (x *ListLit) End() Pos      { return x.Rbrack.Advance(1) }
func (x *UnaryExpr) End() Pos    { return x.X.End() }
func (x *BinaryExpr) End() Pos   { return x.Y.End() }
func (x *NamedArg) End() Pos     { return x.Value.End() }
func (x *CallExpr) End() Pos     { return x.Rparen.Advance(1) }
func (x *IndexExpr) End() Pos    { return x.Rbrack.Advance(1) }
func (x *SelectorExpr) End() Pos { return x.Sel.End() }
func (x *RangeExpr) End() Pos    { return x.Hi.End() }
func (x *ParenExpr) End() Pos    { return x.Rparen.Advance(1) }

// End is after `true` or `false`.
func (x *BoolLit) End() Pos {
	if x.Value {
		return x.ValuePos.Advance(4)
	}
	return x.ValuePos.Advance(5)
}

// End is Hi's end, or just after the colon when Hi is absent.
func (x *SliceExpr) End() Pos {
	if x.Hi != nil {
		return x.Hi.End()
	}
	return x.Colon.Advance(1)
}

func (*Ident) exprNode()        {}
func (*NumberLit) exprNode()    {}
func (*StringLit) exprNode()    {}
func (*BoolLit) exprNode()      {}
func (*ListLit) exprNode()      {}
func (*UnaryExpr) exprNode()    {}
func (*BinaryExpr) exprNode()   {}
func (*CallExpr) exprNode()     {}
func (*IndexExpr) exprNode()    {}
func (*SliceExpr) exprNode()    {}
func (*SelectorExpr) exprNode() {}
func (*RangeExpr) exprNode()    {}
func (*ParenExpr) exprNode()    {}

// Arg returns the named argument called name, or nil.
func (x *CallExpr) Arg(name string) *NamedArg {
	for _, a := range x.Named {
		if a.Name.Name == name {
			return a
		}
	}
	return nil
}

// FunName returns the callee's name when Fun is an identifier, else "".
func (x *CallExpr) FunName() string {
	if id, ok := x.Fun.(*Ident); ok {
		return id.Name
	}
	return ""
}
