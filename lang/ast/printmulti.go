package ast

// Multi-line calls and matrices: the source's choice to put arguments (rows)
// on separate lines is kept, one per line, each followed by a comma and any
// comment that was on its line.

// spread reports whether some element starts on a later source line than
// the previous one ends.
func (p *printer) spread(xs []Node) bool {
	for i := 1; i < len(xs); i++ {
		a, b := xs[i-1].End(), xs[i].Pos()
		if a.IsValid() && b.IsValid() && p.line(b) > p.line(a) {
			return true
		}
	}
	return false
}

// multiLine prints open, then each element on its own line, then close.
// lo and hi are the offsets of the brackets, bounding the comments placed.
func (p *printer) multiLine(open, close string, elems []Node, lo, hi int, print func(Node)) {
	groups := make([][]Node, len(elems))
	for i, e := range elems {
		groups[i] = []Node{e}
	}
	p.multiLineGroups(open, close, groups, lo, hi, print)
}

// multiLineGroups prints open, then each group of elements on its own line
// (separated by ", "), then close; every line ends with a comma and the
// comment that was on its source line.
func (p *printer) multiLineGroups(open, close string, groups [][]Node, lo, hi int, print func(Node)) {
	p.write(open + "\n")
	p.indent++
	saved := p.lastLine
	p.lastLine = 0
	for i, g := range groups {
		p.leading(lo, int(g[0].Pos()))
		p.writeIndent()
		for k, e := range g {
			if k > 0 {
				p.write(", ")
			}
			print(e)
		}
		p.write(",")
		limit := hi
		if i+1 < len(groups) {
			limit = int(groups[i+1][0].Pos())
		}
		last := g[len(g)-1]
		p.trailing(last.End(), limit)
		p.write("\n")
		p.lastLine = p.line(last.End())
	}
	p.leading(lo, hi)
	p.indent--
	p.lastLine = saved
	p.writeIndent()
	p.write(close)
}

// lineGroups splits elements into runs that the source put on one line: a
// new run starts where an element starts on a later line than the previous
// one ends.
func (p *printer) lineGroups(xs []Node) [][]Node {
	var out [][]Node
	for i, x := range xs {
		if i > 0 && !p.spread(xs[i-1:i+1]) {
			out[len(out)-1] = append(out[len(out)-1], x)
			continue
		}
		out = append(out, []Node{x})
	}
	return out
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
