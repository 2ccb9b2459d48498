package parser

import (
	"fmt"
	"strings"

	"github.com/fg-infer/fg/lang/ast"
)

// sexpr renders a node as an s-expression that shows the tree structure
// explicitly (independently of the printer), without positions.
func sexpr(n ast.Node) string {
	var b strings.Builder
	writeS(&b, n)
	return b.String()
}

func writeS(b *strings.Builder, n ast.Node) {
	if s, ok := n.(ast.Stmt); ok {
		writeStmt(b, s)
		return
	}
	writeExprS(b, n)
}

func list(b *strings.Builder, head string, parts ...ast.Node) {
	b.WriteString("(" + head)
	for _, p := range parts {
		b.WriteString(" ")
		writeS(b, p)
	}
	b.WriteString(")")
}

func exprNodes(xs []ast.Expr) []ast.Node {
	out := make([]ast.Node, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func writeExprS(b *strings.Builder, n ast.Node) {
	switch x := n.(type) {
	case nil:
		b.WriteString("_")
	case *ast.Ident:
		if x == nil {
			b.WriteString("_")
			return
		}
		b.WriteString(x.Name)
	case *ast.NumberLit:
		fmt.Fprintf(b, "%s=%g", x.Text, x.Value)
	case *ast.StringLit:
		fmt.Fprintf(b, "%q", x.Value)
	case *ast.BoolLit:
		fmt.Fprintf(b, "%t", x.Value)
	case *ast.ListLit:
		list(b, "list", exprNodes(x.Elems)...)
	case *ast.UnaryExpr:
		op := "neg"
		if x.Op == ast.OpNot {
			op = "not"
		}
		list(b, op, x.X)
	case *ast.BinaryExpr:
		list(b, x.Op.String(), x.X, x.Y)
	case *ast.CallExpr:
		parts := append([]ast.Node{x.Fun}, exprNodes(x.Args)...)
		for _, a := range x.Named {
			parts = append(parts, a)
		}
		list(b, "call", parts...)
	case *ast.NamedArg:
		list(b, x.Name.Name+"=", x.Value)
	case *ast.IndexExpr:
		list(b, "index", append([]ast.Node{x.X}, exprNodes(x.Indices)...)...)
	case *ast.SliceExpr:
		list(b, "slice", x.Lo, x.Hi)
	case *ast.SelectorExpr:
		list(b, "sel", x.X, x.Sel)
	case *ast.RangeExpr:
		list(b, "range", x.Lo, x.Hi)
	case *ast.ParenExpr:
		list(b, "paren", x.X)
	case *ast.TypeExpr:
		if x == nil {
			b.WriteString("_")
			return
		}
		list(b, "type", append([]ast.Node{x.Base, x.CatK}, exprNodes(x.Dims)...)...)
	case *ast.Option:
		list(b, x.Key.Name+"=", x.Value)
	case *ast.LearnItem:
		list(b, "item", x.Name, x.Lo, x.Hi)
	default:
		fmt.Fprintf(b, "<%T>", n)
	}
}

func writeStmt(b *strings.Builder, s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ModelStmt:
		list(b, "model", s.Name)
	case *ast.ImportStmt:
		list(b, "import", s.Path)
	case *ast.DataStmt:
		list(b, "data", s.Name, s.Type, s.Value)
	case *ast.ParamStmt:
		list(b, "param", s.Name, s.Value)
	case *ast.LatentStmt:
		list(b, "latent", s.Name, s.Type, s.Prior)
	case *ast.TildeStmt:
		list(b, "~", s.LHS, s.Dist)
	case *ast.FactorStmt:
		list(b, "factor", s.Call)
	case *ast.ForStmt:
		head := "for"
		if s.Tuple {
			head = "for-tuple"
		}
		parts := []ast.Node{}
		for _, v := range s.Vars {
			parts = append(parts, v)
		}
		parts = append(parts, s.Iter)
		for _, st := range s.Body {
			parts = append(parts, st)
		}
		list(b, head, parts...)
	default:
		writeStmt2(b, s)
	}
}

func writeStmt2(b *strings.Builder, s ast.Stmt) {
	switch s := s.(type) {
	case *ast.InferStmt:
		parts := []ast.Node{s.Method, s.Label}
		for _, o := range s.Options {
			parts = append(parts, o)
		}
		head := "infer"
		if s.Lbrace.IsValid() {
			head = "infer{}"
		}
		list(b, head, parts...)
	case *ast.PredictStmt:
		list(b, "predict", s.Name, s.Value)
	case *ast.ExpectStmt:
		list(b, "expect", s.X, s.Label)
	case *ast.LearnStmt:
		parts := []ast.Node{}
		for _, it := range s.Items {
			parts = append(parts, it)
		}
		parts = append(parts, s.By)
		for _, o := range s.Options {
			parts = append(parts, o)
		}
		head := "learn"
		if s.Lbrace.IsValid() {
			head = "learn{}"
		}
		list(b, head, parts...)
	default:
		fmt.Fprintf(b, "<%T>", s)
	}
}

// fileS renders every statement of a file, one per line.
func fileS(f *ast.File) string {
	var b strings.Builder
	for _, s := range f.Stmts {
		b.WriteString(sexpr(s) + "\n")
	}
	return b.String()
}
