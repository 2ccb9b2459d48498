package ast

// Visitor's Visit is called for each node met by Walk. If it returns a
// non-nil w, Walk visits the children of node with w, then calls
// w.Visit(nil).
type Visitor interface {
	Visit(node Node) (w Visitor)
}

// Walk traverses the tree rooted at node depth-first in source order (as
// go/ast.Walk). Nil children are skipped. Comments are not visited.
func Walk(v Visitor, node Node) {
	if v = v.Visit(node); v == nil {
		return
	}
	for _, c := range children(node) {
		Walk(v, c)
	}
	v.Visit(nil)
}

type inspector func(Node) bool

func (f inspector) Visit(node Node) Visitor {
	if f(node) {
		return f
	}
	return nil
}

// Inspect traverses the tree calling f(node) for each node; if f returns
// true, Inspect visits the children and then calls f(nil).
func Inspect(node Node, f func(Node) bool) {
	Walk(inspector(f), node)
}

// children lists the non-nil child nodes of n in source order.
func children(n Node) []Node {
	var out []Node
	add := func(ns ...Node) {
		for _, c := range ns {
			if !isNil(c) {
				out = append(out, c)
			}
		}
	}
	switch n := n.(type) {
	case *File:
		for _, s := range n.Stmts {
			add(s)
		}
	case *ModelStmt:
		add(n.Name)
	case *ImportStmt:
		add(n.Path)
	case *DataStmt:
		add(n.Name, n.Type, n.Value)
	case *ParamStmt:
		add(n.Name, n.Value)
	case *LatentStmt:
		add(n.Name, n.Type, n.Prior)
	case *TildeStmt:
		add(n.LHS, n.Dist)
	case *FactorStmt:
		add(n.Call)
	case *ForStmt:
		for _, v := range n.Vars {
			add(v)
		}
		add(n.Iter)
		for _, s := range n.Body {
			add(s)
		}
	case *InferStmt:
		add(n.Method, n.Label)
		addOptions(add, n.Options)
	case *PredictStmt:
		add(n.Name, n.Value)
	case *ExpectStmt:
		add(n.X, n.Label)
	case *LearnStmt:
		for _, it := range n.Items {
			add(it)
		}
		add(n.By)
		addOptions(add, n.Options)
	case *LearnItem:
		add(n.Name, n.Lo, n.Hi)
	case *Option:
		add(n.Key, n.Value)
	case *TypeExpr:
		add(n.Base, n.CatK)
		addExprs(add, n.Dims)
	default:
		return exprChildren(n)
	}
	return out
}

func exprChildren(n Node) []Node {
	var out []Node
	add := func(ns ...Node) {
		for _, c := range ns {
			if !isNil(c) {
				out = append(out, c)
			}
		}
	}
	switch n := n.(type) {
	case *ListLit:
		addExprs(add, n.Elems)
	case *UnaryExpr:
		add(n.X)
	case *BinaryExpr:
		add(n.X, n.Y)
	case *NamedArg:
		add(n.Name, n.Value)
	case *CallExpr:
		add(n.Fun)
		addExprs(add, n.Args)
		for _, a := range n.Named {
			add(a)
		}
	case *IndexExpr:
		add(n.X)
		addExprs(add, n.Indices)
	case *SliceExpr:
		add(n.Lo, n.Hi)
	case *SelectorExpr:
		add(n.X, n.Sel)
	case *RangeExpr:
		add(n.Lo, n.Hi)
	case *ParenExpr:
		add(n.X)
	}
	return out
}

func addExprs(add func(...Node), xs []Expr) {
	for _, x := range xs {
		add(x)
	}
}

func addOptions(add func(...Node), opts []*Option) {
	for _, o := range opts {
		add(o)
	}
}

// isNil reports whether n is nil or a typed nil pointer.
func isNil(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *Ident:
		return n == nil
	case *TypeExpr:
		return n == nil
	case *StringLit:
		return n == nil
	case *CallExpr:
		return n == nil
	}
	return false
}
