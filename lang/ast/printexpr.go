package ast

import (
	"strconv"
	"strings"
)

// ExprString renders an expression in canonical fg syntax on one line (as
// used in error messages and reports). Parentheses the user wrote are kept
// (*ParenExpr); parentheses the precedence rules require are added, so
// ExprString of a tree built by hand parses back to the same tree.
//
// A malformed tree yields the text so far followed by `<malformed>` rather
// than a panic.
func ExprString(x Expr) (s string) {
	if x == nil {
		return ""
	}
	p := &printer{flat: true}
	defer func() {
		if recover() != nil {
			s = p.buf.String() + "<malformed>"
		}
	}()
	p.expr(x)
	return p.buf.String()
}

// prec is the binding strength of x as an operand: operator precedence for
// unary and binary expressions, 9 for primaries and postfix forms.
func prec(x Expr) int {
	switch x := x.(type) {
	case *BinaryExpr:
		return x.Op.Precedence()
	case *UnaryExpr:
		return x.Op.Precedence()
	case *SliceExpr, *RangeExpr:
		return 0
	}
	return 9
}

// binaryNeedsParens reports whether child, as the left (or right) operand
// of a binary op, must be parenthesised to parse back as written.
func binaryNeedsParens(op Op, child Expr, left bool) bool {
	p, c := op.Precedence(), prec(child)
	if u, ok := child.(*UnaryExpr); ok {
		if u.Op == OpNot {
			return p > OpNot.Precedence()
		}
		return op == OpPow && left // (-x)^2
	}
	if left {
		return c < p || (c == p && (op == OpPow || op.IsComparison()))
	}
	return c < p || (c == p && op != OpPow)
}

// unaryNeedsParens: -(a + b), -(not a), not (a and b).
func unaryNeedsParens(op Op, child Expr) bool {
	c := prec(child)
	if op == OpNeg {
		if u, ok := child.(*UnaryExpr); ok {
			return u.Op == OpNot
		}
		return c < OpPow.Precedence()
	}
	return c < OpNot.Precedence()
}

func (p *printer) operand(x Expr, parens bool) {
	if parens {
		p.write("(")
		p.expr(x)
		p.write(")")
		return
	}
	p.expr(x)
}

func (p *printer) expr(x Expr) {
	switch x := x.(type) {
	case nil:
		p.write("<nil>")
	case *Ident:
		p.write(x.Name)
	case *NumberLit:
		p.write(numberText(x))
	case *StringLit:
		p.write(stringText(x))
	case *BoolLit:
		p.write(strconv.FormatBool(x.Value))
	case *ListLit:
		p.list(x)
	case *UnaryExpr:
		p.unary(x)
	case *BinaryExpr:
		p.binary(x)
	default:
		p.postfix(x)
	}
}

func (p *printer) postfix(x Expr) {
	switch x := x.(type) {
	case *CallExpr:
		p.operand(x.Fun, prec(x.Fun) < 9)
		p.args(x)
	case *IndexExpr:
		p.operand(x.X, prec(x.X) < 9)
		p.write("[")
		p.exprList(x.Indices)
		p.write("]")
	case *SliceExpr:
		if x.Lo != nil {
			p.expr(x.Lo)
		}
		p.write(":")
		if x.Hi != nil {
			p.expr(x.Hi)
		}
	case *SelectorExpr:
		p.operand(x.X, prec(x.X) < 9)
		p.write(".")
		p.expr(x.Sel)
	case *RangeExpr:
		p.expr(x.Lo)
		p.write("..")
		p.expr(x.Hi)
	case *ParenExpr:
		p.write("(")
		p.expr(x.X)
		p.write(")")
	}
}

func (p *printer) unary(x *UnaryExpr) {
	if x.Op == OpNot {
		p.write("not ")
	} else {
		p.write("-")
	}
	p.operand(x.X, unaryNeedsParens(x.Op, x.X))
}

func (p *printer) binary(x *BinaryExpr) {
	p.operand(x.X, binaryNeedsParens(x.Op, x.X, true))
	if x.Op == OpPow {
		p.write("^")
	} else {
		p.write(" " + x.Op.String() + " ")
	}
	p.operand(x.Y, binaryNeedsParens(x.Op, x.Y, false))
}

func (p *printer) args(x *CallExpr) {
	if args := callArgs(x); !p.flat && p.spread(args) {
		p.multiLine("(", ")", args, offsetOf(x.Lparen), offsetOf(x.Rparen), p.arg)
		return
	}
	p.write("(")
	p.exprList(x.Args)
	for i, a := range x.Named {
		if i > 0 || len(x.Args) > 0 {
			p.write(", ")
		}
		p.write(a.Name.Name + " = ")
		p.expr(a.Value)
	}
	p.write(")")
}

func (p *printer) exprList(xs []Expr) {
	for i, x := range xs {
		if i > 0 {
			p.write(", ")
		}
		p.expr(x)
	}
}

// list prints a list literal on one line, unless the source broke it over
// several lines: then it keeps those breaks, each source line of elements
// (a matrix row, or a run of a long vector) on a line of its own
// (multiLineGroups).
func (p *printer) list(x *ListLit) {
	elems := make([]Node, len(x.Elems))
	for i, e := range x.Elems {
		elems[i] = e
	}
	if p.flat || !p.spread(elems) {
		p.write("[")
		p.exprList(x.Elems)
		p.write("]")
		return
	}
	p.multiLineGroups("[", "]", p.lineGroups(elems), offsetOf(x.Lbrack), offsetOf(x.Rbrack), func(n Node) { p.expr(n.(Expr)) })
}

func numberText(x *NumberLit) string {
	if x.Text != "" {
		return x.Text
	}
	return strconv.FormatFloat(x.Value, 'g', -1, 64)
}

func stringText(x *StringLit) string {
	if x.Raw != "" && strings.HasPrefix(x.Raw, `"`) {
		return x.Raw
	}
	return strconv.Quote(x.Value)
}
