package ast

// Multi-line calls and matrices: the source's choice to put arguments (rows)
// on separate lines is kept, one per line, each followed by a comma and any
// comment that was on its line.

// spread reports whether some element starts on a later source line than
// the previous one ends.
func spread(xs []Node) bool {
	for i := 1; i < len(xs); i++ {
		a, b := xs[i-1].End(), xs[i].Pos()
		if a.IsValid() && b.IsValid() && b.Line > a.Line {
			return true
		}
	}
	return false
}

// multiLine prints open, then each element on its own line, then close.
// lo and hi are the offsets of the brackets, bounding the comments placed.
func (p *printer) multiLine(open, close string, elems []Node, lo, hi int, print func(Node)) {
	p.write(open + "\n")
	p.indent++
	saved := p.lastLine
	p.lastLine = 0
	for i, e := range elems {
		p.leading(lo, e.Pos().Offset)
		p.writeIndent()
		print(e)
		p.write(",")
		limit := hi
		if i+1 < len(elems) {
			limit = elems[i+1].Pos().Offset
		}
		p.trailing(e.End(), limit)
		p.write("\n")
		p.lastLine = e.End().Line
	}
	p.leading(lo, hi)
	p.indent--
	p.lastLine = saved
	p.writeIndent()
	p.write(close)
}

// callArgs lists positional then named arguments as nodes.
func callArgs(x *CallExpr) []Node {
	out := make([]Node, 0, len(x.Args)+len(x.Named))
	for _, a := range x.Args {
		out = append(out, a)
	}
	for _, a := range x.Named {
		out = append(out, a)
	}
	return out
}

func (p *printer) arg(n Node) {
	if a, ok := n.(*NamedArg); ok {
		p.write(a.Name.Name + " = ")
		p.expr(a.Value)
		return
	}
	p.expr(n.(Expr))
}
