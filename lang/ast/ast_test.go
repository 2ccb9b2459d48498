package ast

import (
	"strings"
	"testing"
)

func id(s string) *Ident                    { return &Ident{Name: s} }
func num(v float64) *NumberLit              { return &NumberLit{Value: v} }
func call(f string, args ...Expr) *CallExpr { return &CallExpr{Fun: id(f), Args: args} }

func TestOp(t *testing.T) {
	for op := OpOr; op <= OpPow; op++ {
		if op.String() == opText[OpInvalid] || op.Precedence() == 0 {
			t.Errorf("op %d has no text or precedence", op)
		}
		if op != OpNot && op != OpNeg && BinaryOp(op.String()) != op {
			t.Errorf("BinaryOp(%q) = %v", op.String(), BinaryOp(op.String()))
		}
	}
	if BinaryOp("not") != OpInvalid || BinaryOp("-") != OpSub || BinaryOp("?") != OpInvalid {
		t.Error("BinaryOp: unary or unknown operators")
	}
	if Op(99).String() != "<invalid op>" || OpInvalid.Precedence() != 0 {
		t.Error("invalid op")
	}
	// Binding order of docs/language-decisions.md, loosest first.
	order := [][]Op{{OpOr}, {OpAnd}, {OpNot}, {OpEq, OpNe, OpLt, OpLe, OpGt, OpGe},
		{OpAdd, OpSub}, {OpMul, OpDiv, OpMatMul}, {OpNeg}, {OpPow}}
	for i, level := range order {
		for _, op := range level {
			if op.Precedence() != i+1 {
				t.Errorf("%v: precedence %d, want %d", op, op.Precedence(), i+1)
			}
			if op.IsComparison() != (i == 3) {
				t.Errorf("%v: IsComparison", op)
			}
		}
	}
}

func TestExprStringParens(t *testing.T) {
	add := &BinaryExpr{X: id("a"), Op: OpAdd, Y: id("b")}
	for _, c := range []struct {
		x    Expr
		want string
	}{
		{&BinaryExpr{X: add, Op: OpMul, Y: id("c")}, "(a + b) * c"},
		{&BinaryExpr{X: id("c"), Op: OpSub, Y: add}, "c - (a + b)"},
		{&BinaryExpr{X: add, Op: OpSub, Y: id("c")}, "a + b - c"},
		{&BinaryExpr{X: &BinaryExpr{X: id("a"), Op: OpPow, Y: id("b")}, Op: OpPow, Y: id("c")}, "(a^b)^c"},
		{&BinaryExpr{X: id("a"), Op: OpPow, Y: &BinaryExpr{X: id("b"), Op: OpPow, Y: id("c")}}, "a^b^c"},
		{&BinaryExpr{X: &UnaryExpr{Op: OpNeg, X: id("x")}, Op: OpPow, Y: num(2)}, "(-x)^2"},
		{&UnaryExpr{Op: OpNeg, X: &BinaryExpr{X: id("x"), Op: OpPow, Y: num(2)}}, "-x^2"},
		{&UnaryExpr{Op: OpNeg, X: add}, "-(a + b)"},
		{&UnaryExpr{Op: OpNot, X: &BinaryExpr{X: id("a"), Op: OpOr, Y: id("b")}}, "not (a or b)"},
		{&UnaryExpr{Op: OpNot, X: &BinaryExpr{X: id("a"), Op: OpLt, Y: id("b")}}, "not a < b"},
		{&BinaryExpr{X: &UnaryExpr{Op: OpNot, X: id("a")}, Op: OpAdd, Y: num(1)}, "(not a) + 1"},
		{&BinaryExpr{X: &BinaryExpr{X: id("a"), Op: OpLt, Y: id("b")}, Op: OpLt, Y: id("c")}, "(a < b) < c"},
		{&CallExpr{Fun: id("f"), Args: []Expr{num(1.5)}, Named: []*NamedArg{{Name: id("c"), Value: num(20)}}}, "f(1.5, c = 20)"},
		{&IndexExpr{X: add, Indices: []Expr{&SliceExpr{Hi: num(3)}, &SliceExpr{}}}, "(a + b)[:3, :]"},
		{&SelectorExpr{X: call("f"), Sel: id("m")}, "f().m"},
		{&RangeExpr{Lo: num(0), Hi: id("N")}, "0..N"},
		{&StringLit{Value: "a\"b"}, `"a\"b"`},
		{&ListLit{Elems: []Expr{&BoolLit{Value: true}, &BoolLit{}}}, "[true, false]"},
		{&ParenExpr{X: id("z")}, "(z)"},
	} {
		if got := ExprString(c.x); got != c.want {
			t.Errorf("ExprString = %q, want %q", got, c.want)
		}
	}
}

// TestFormatBuilt prints a tree built by hand (no positions, no comments).
func TestFormatBuilt(t *testing.T) {
	f := &File{Stmts: []Stmt{
		&ModelStmt{Name: id("m")},
		&DataStmt{Name: id("X"), Type: &TypeExpr{Base: id("real"), Dims: []Expr{num(2), id("D")}},
			Value: &ListLit{Elems: []Expr{&ListLit{Elems: []Expr{num(1)}}, &ListLit{Elems: []Expr{num(2)}}}}},
		&LatentStmt{Name: id("c"), Type: &TypeExpr{Base: id("cat"), CatK: num(3)}},
		&ForStmt{Tuple: true, Vars: []*Ident{id("i"), id("j")}, Iter: call("edges", id("G")),
			Body: []Stmt{&FactorStmt{Call: call("ising", id("i"), id("j"))}}},
		&ForStmt{Vars: []*Ident{id("k")}, Iter: &RangeExpr{Lo: num(0), Hi: num(2)}},
		&InferStmt{Method: id("ep"), Label: id("x"), Options: []*Option{{Key: id("damping"), Value: num(0.5)}}},
		&InferStmt{Method: id("exact")},
		&LearnStmt{Items: []*LearnItem{{Name: id("a"), Lo: num(0), Hi: num(1)}, {Name: id("b")}}, By: id("evidence")},
		&ExpectStmt{X: id("converged"), Label: id("x")},
		&PredictStmt{Name: id("p"), Value: call("predictive", id("f"), id("X"))},
		&TildeStmt{LHS: id("y"), Dist: call("normal", num(0), num(1))},
		&ImportStmt{Path: &StringLit{Value: "lib.fg"}},
		&ParamStmt{Name: id("eps"), Value: num(0.2)},
	}}
	want := strings.Join([]string{
		"model m",
		"data X: real[2, D] = [[1], [2]]",
		"latent c: cat(3)",
		"for (i, j) in edges(G) {",
		"  factor ising(i, j)",
		"}",
		"for k in 0..2 {}",
		"infer ep as x {",
		"  damping = 0.5",
		"}",
		"infer exact",
		"learn a in [0, 1], b by evidence",
		"expect converged for x",
		"predict p = predictive(f, X)",
		"y ~ normal(0, 1)",
		`import "lib.fg"`,
		"param eps = 0.2",
		"",
	}, "\n")
	if got := string(Format(nil, f)); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	if got := Format(nil, &File{}); len(got) != 0 {
		t.Errorf("empty file formats to %q", got)
	}
}

func TestWalkOrder(t *testing.T) {
	s := &TildeStmt{LHS: &IndexExpr{X: id("y"), Indices: []Expr{id("i")}},
		Dist: &CallExpr{Fun: id("f"), Args: []Expr{&UnaryExpr{Op: OpNeg, X: num(1)}},
			Named: []*NamedArg{{Name: id("n"), Value: id("v")}}}}
	var got []string
	Inspect(s, func(n Node) bool {
		if n == nil {
			got = append(got, ")")
			return false
		}
		switch n := n.(type) {
		case *Ident:
			got = append(got, n.Name)
		default:
			got = append(got, strings.TrimPrefix(typeName(n), "*ast."))
		}
		return true
	})
	want := "TildeStmt IndexExpr y ) i ) ) CallExpr f ) UnaryExpr NumberLit ) ) NamedArg n ) v ) ) ) )"
	if strings.Join(got, " ") != want {
		t.Errorf("Inspect order:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// Pruning: returning false skips children.
	n := 0
	Inspect(s, func(x Node) bool { n++; _, isCall := x.(*CallExpr); return !isCall })
	if n != 9 { // Tilde, Index, y, nil, i, nil, nil(Index), Call, nil(Tilde)
		t.Errorf("pruned walk visited %d", n)
	}
}

func typeName(n Node) string {
	switch n.(type) {
	case *TildeStmt:
		return "TildeStmt"
	case *IndexExpr:
		return "IndexExpr"
	case *CallExpr:
		return "CallExpr"
	case *UnaryExpr:
		return "UnaryExpr"
	case *NumberLit:
		return "NumberLit"
	case *NamedArg:
		return "NamedArg"
	}
	return "?"
}

func TestHelpersAndEnds(t *testing.T) {
	c := &CallExpr{Fun: id("relaxed_kl"), Named: []*NamedArg{{Name: id("c"), Value: num(20)}}}
	if c.Arg("c") == nil || c.Arg("d") != nil || c.FunName() != "relaxed_kl" {
		t.Error("CallExpr helpers")
	}
	if (&CallExpr{Fun: &SelectorExpr{X: id("a"), Sel: id("b")}}).FunName() != "" {
		t.Error("FunName of selector")
	}
	inf := &InferStmt{Method: id("ep"), Options: []*Option{{Key: id("damping"), Value: num(0.5)}}}
	if inf.Option("damping") == nil || inf.Option("tol") != nil {
		t.Error("InferStmt.Option")
	}
	if (&LearnStmt{}).Option("x") != nil {
		t.Error("LearnStmt.Option")
	}
	fset := NewFileSet()
	file := fset.AddFile("f", []byte("line one\n  false // hi\n"))
	p := file.Pos(11)
	b := &BoolLit{ValuePos: p, Value: false}
	if e := fset.Position(b.End()); e.Column != 8 || e.Offset != 16 {
		t.Errorf("BoolLit end %v", e)
	}
	if NoPos.Advance(3).IsValid() {
		t.Error("Advance of invalid pos")
	}
	sl := &SliceExpr{Colon: p}
	if sl.Pos() != p || fset.Position(sl.End()).Column != 4 {
		t.Error("SliceExpr span")
	}
	cm := &Comment{Slash: p, Text: "// hi"}
	if fset.Position(cm.End()).Column != 8 {
		t.Error("Comment end")
	}
}

func TestMalformedNoPanic(t *testing.T) {
	out := string(Format(nil, &File{Stmts: []Stmt{&ModelStmt{Name: id("ok")}, &ParamStmt{Name: id("a")}}}))
	if !strings.HasPrefix(out, "model ok\n") || !strings.Contains(out, "<malformed syntax tree") {
		t.Errorf("Format of a malformed tree: %q", out)
	}
	if s := ExprString(&BinaryExpr{X: id("a"), Op: OpAdd}); s != "a + <nil>" {
		t.Errorf("ExprString of a malformed tree: %q", s)
	}
}

func TestExprStringNilAndPanic(t *testing.T) {
	if ExprString(nil) != "" {
		t.Error("ExprString(nil)")
	}
	// A nil *Ident callee dereferences nil inside the printer: recovered.
	if s := ExprString(&SelectorExpr{X: id("a")}); s != "a.<malformed>" {
		t.Errorf("got %q", s)
	}
}

func TestErrorListTruncate(t *testing.T) {
	var l ErrorList
	for i := range MaxErrors + 5 {
		l.Add(Position{Filename: "f", Line: i + 1, Column: 1}, Position{}, "e%d", i)
	}
	got := l.Truncate()
	if len(got) != MaxErrors+1 || got[MaxErrors].Pos.Line != MaxErrors+1 || got[MaxErrors].Msg != "too many errors: only the first 100 are shown" {
		t.Errorf("truncated to %d, last %v", len(got), got[len(got)-1])
	}
	if short := l[:3].Truncate(); len(short) != 3 {
		t.Errorf("a short list changed: %v", short)
	}
}
