package parser

import (
	"github.com/fg-infer/fg/lang/ast"
)

// Expression lowering: each precedence level of the grammar folds its
// operator list left to right (right to left for prefix operators and `^`).

func (l *lowerer) optExpr(g *gExpr) ast.Expr {
	if g == nil {
		return nil
	}
	return l.expr(g)
}

func (l *lowerer) exprs(gs []*gExpr) []ast.Expr {
	out := make([]ast.Expr, 0, len(gs))
	for _, g := range gs {
		out = append(out, l.expr(g))
	}
	return out
}

func bin(x ast.Expr, op ast.Op, at ast.Pos, y ast.Expr) ast.Expr {
	return &ast.BinaryExpr{X: x, OpPos: at, Op: op, Y: y}
}

func (l *lowerer) expr(g *gExpr) ast.Expr {
	x := l.and(g.Left)
	for _, r := range g.Rest {
		x = bin(x, ast.OpOr, l.pos(r.Op), l.and(r.Right))
	}
	return x
}

func (l *lowerer) and(g *gAnd) ast.Expr {
	x := l.not(g.Left)
	for _, r := range g.Rest {
		x = bin(x, ast.OpAnd, l.pos(r.Op), l.not(r.Right))
	}
	return x
}

func (l *lowerer) not(g *gNot) ast.Expr {
	x := l.cmp(g.X)
	for i := len(g.Nots) - 1; i >= 0; i-- {
		x = &ast.UnaryExpr{OpPos: l.pos(g.Nots[i].Op), Op: ast.OpNot, X: x}
	}
	return x
}

// cmp lowers comparisons, which do not chain: `a < b < c` is an error.
func (l *lowerer) cmp(g *gCmp) ast.Expr {
	x := l.sum(g.Left)
	for i, r := range g.Rest {
		at := l.pos(r.Op)
		if i == 1 {
			p := position(r.Op.Pos)
			l.errs.Add(p, advance(p, len(r.Op.Value)),
				"comparisons do not chain: write `a < b and b < c` or use parentheses")
		}
		x = bin(x, ast.BinaryOp(r.Op.Value), at, l.sum(r.Right))
	}
	return x
}

func (l *lowerer) sum(g *gSum) ast.Expr {
	x := l.term(g.Left)
	for _, r := range g.Rest {
		x = bin(x, ast.BinaryOp(r.Op.Value), l.pos(r.Op), l.term(r.Right))
	}
	return x
}

func (l *lowerer) term(g *gTerm) ast.Expr {
	x := l.unary(g.Left)
	for _, r := range g.Rest {
		x = bin(x, ast.BinaryOp(r.Op.Value), l.pos(r.Op), l.unary(r.Right))
	}
	return x
}

func (l *lowerer) unary(g *gUnary) ast.Expr {
	x := l.power(g.X)
	for i := len(g.Negs) - 1; i >= 0; i-- {
		x = &ast.UnaryExpr{OpPos: l.pos(g.Negs[i].Op), Op: ast.OpNeg, X: x}
	}
	return x
}

// power is right-associative through the grammar: the exponent is a unary
// expression, itself possibly a power.
func (l *lowerer) power(g *gPower) ast.Expr {
	x := l.postfix(g.Base)
	if g.Exp != nil {
		x = bin(x, ast.OpPow, l.pos(g.Op), l.unary(g.Exp))
	}
	return x
}

func (l *lowerer) postfix(g *gPostfix) ast.Expr {
	x := l.primary(g.X)
	for _, op := range g.Ops {
		switch {
		case op.Call != nil:
			x = l.call(x, op.Call)
		case op.Index != nil:
			x = l.index(x, op.Index)
		default:
			x = &ast.SelectorExpr{X: x, Sel: l.ident(op.Sel)}
		}
	}
	return x
}

// call lowers arguments; positional ones must precede named ones and a
// name may appear once.
func (l *lowerer) call(fun ast.Expr, g *gCall) ast.Expr {
	c := &ast.CallExpr{Fun: fun, Lparen: l.pos(g.Lparen), Rparen: l.pos(g.Rparen)}
	seen := map[string]bool{}
	for _, a := range g.Args {
		if a.Named == nil {
			x := l.expr(a.X)
			if len(c.Named) > 0 {
				l.errorf(x, "positional argument after named argument `%s`", c.Named[len(c.Named)-1].Name.Name)
			}
			c.Args = append(c.Args, x)
			continue
		}
		na := &ast.NamedArg{Name: l.ident(a.Named.Name), Value: l.expr(a.Named.Value)}
		if seen[na.Name.Name] {
			l.errorf(na.Name, "argument `%s` given twice", na.Name.Name)
		}
		seen[na.Name.Name] = true
		c.Named = append(c.Named, na)
	}
	return c
}

func (l *lowerer) index(x ast.Expr, g *gIndex) ast.Expr {
	ix := &ast.IndexExpr{X: x, Lbrack: l.pos(g.Lbrack), Rbrack: l.pos(g.Rbrack)}
	for _, it := range g.Items {
		ix.Indices = append(ix.Indices, l.indexItem(it, ix))
	}
	return ix
}

func (l *lowerer) indexItem(it *gIndexItem, ix *ast.IndexExpr) ast.Expr {
	if it.Colon.Value == "" {
		if it.Lo == nil {
			l.errorf(ix, "empty index")
			return &ast.Ident{NamePos: ix.Lbrack, Name: "_"}
		}
		return l.expr(it.Lo)
	}
	return &ast.SliceExpr{Lo: l.optExpr(it.Lo), Colon: l.pos(it.Colon), Hi: l.optExpr(it.Hi)}
}

func (l *lowerer) primary(g *gPrimary) ast.Expr {
	switch {
	case g.Number != nil:
		return l.number(*g.Number)
	case g.String != nil:
		return l.str(*g.String)
	case g.Bool != nil:
		return &ast.BoolLit{ValuePos: l.pos(*g.Bool), Value: g.Bool.Value == "true"}
	case g.Ident != nil:
		return l.ident(g.Ident)
	case g.List != nil:
		return &ast.ListLit{Lbrack: l.pos(g.List.Lbrack), Elems: l.exprs(g.List.Elems), Rbrack: l.pos(g.List.Rbrack)}
	}
	p := g.Paren
	return &ast.ParenExpr{Lparen: l.pos(p.Lparen), X: l.expr(p.X), Rparen: l.pos(p.Rparen)}
}
