package parser

import (
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// randExpr builds a random expression tree without ParenExpr nodes, so that
// ast.ExprString must insert every parenthesis the precedence rules need.
func randExpr(r *rand.Rand, depth int) ast.Expr {
	if depth == 0 || r.IntN(4) == 0 {
		switch r.IntN(3) {
		case 0:
			return &ast.Ident{Name: []string{"a", "b", "x"}[r.IntN(3)]}
		case 1:
			return &ast.NumberLit{Value: float64(r.IntN(10))}
		}
		return &ast.BoolLit{Value: r.IntN(2) == 0}
	}
	switch k := r.IntN(10); {
	case k < 5:
		ops := []ast.Op{ast.OpOr, ast.OpAnd, ast.OpEq, ast.OpNe, ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe,
			ast.OpAdd, ast.OpSub, ast.OpMul, ast.OpDiv, ast.OpMatMul, ast.OpPow}
		return &ast.BinaryExpr{X: randExpr(r, depth-1), Op: ops[r.IntN(len(ops))], Y: randExpr(r, depth-1)}
	case k < 7:
		op := ast.OpNeg
		if r.IntN(2) == 0 {
			op = ast.OpNot
		}
		return &ast.UnaryExpr{Op: op, X: randExpr(r, depth-1)}
	case k < 8:
		return &ast.CallExpr{Fun: randExpr(r, depth-1), Args: []ast.Expr{randExpr(r, depth-1)},
			Named: []*ast.NamedArg{{Name: &ast.Ident{Name: "n"}, Value: randExpr(r, depth-1)}}}
	case k < 9:
		return &ast.IndexExpr{X: randExpr(r, depth-1), Indices: []ast.Expr{randExpr(r, depth-1),
			&ast.SliceExpr{Lo: randExpr(r, depth-1)}}}
	}
	return &ast.SelectorExpr{X: randExpr(r, depth-1), Sel: &ast.Ident{Name: "s"}}
}

// stripParens removes ParenExpr nodes (in place) so trees can be compared
// modulo the parentheses the printer added.
func stripParens(x ast.Expr) ast.Expr {
	if p, ok := x.(*ast.ParenExpr); ok {
		return stripParens(p.X)
	}
	switch x := x.(type) {
	case *ast.UnaryExpr:
		x.X = stripParens(x.X)
	case *ast.BinaryExpr:
		x.X, x.Y = stripParens(x.X), stripParens(x.Y)
	case *ast.CallExpr:
		x.Fun = stripParens(x.Fun)
		for i := range x.Args {
			x.Args[i] = stripParens(x.Args[i])
		}
		for _, a := range x.Named {
			a.Value = stripParens(a.Value)
		}
	case *ast.IndexExpr:
		x.X = stripParens(x.X)
		for i := range x.Indices {
			x.Indices[i] = stripParens(x.Indices[i])
		}
	case *ast.SliceExpr:
		if x.Lo != nil {
			x.Lo = stripParens(x.Lo)
		}
	case *ast.SelectorExpr:
		x.X = stripParens(x.X)
	}
	return x
}

// TestExprStringRandom: for random trees, parse(ExprString(x)) == x up to
// parentheses. Chained comparisons are valid trees that the parser rejects
// without parentheses; the printer must parenthesise them too.
func TestExprStringRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		x := randExpr(r, 4)
		text := ast.ExprString(x)
		y, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("#%d: ExprString gave %q which does not parse: %v", i, text, err)
		}
		want := sexprNum(x)
		if got := sexprNum(stripParens(y)); got != want {
			t.Fatalf("#%d: %q parsed as\n%s\nwant\n%s", i, text, got, want)
		}
	}
}

// sexprNum is sexpr with number texts normalised (hand-built literals have
// no Text).
func sexprNum(x ast.Expr) string {
	ast.Inspect(x, func(n ast.Node) bool {
		if lit, ok := n.(*ast.NumberLit); ok {
			lit.Text = ""
		}
		return true
	})
	return sexpr(x)
}

func TestExprStringCases(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"-x^2", "-x^2"},
		{"(-x)^2", "(-x)^2"},
		{"a^-b", "a^-b"},
		{"a-(b-c)", "a - (b - c)"},
		{"not(a and b)", "not (a and b)"},
		{"f( a,b , c=1 )", "f(a, b, c = 1)"},
		{"X[ : ,1 ]", "X[:, 1]"},
		{"[ [1,2],[3,4] ]", "[[1, 2], [3, 4]]"},
		{"\"s\\n\"", "\"s\\n\""},
		{"exact.mean(w[0])", "exact.mean(w[0])"},
	} {
		x, err := ParseExpr(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := ast.ExprString(x); got != c.want {
			t.Errorf("ExprString(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}
