package parser

import (
	"os"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// TestPositions checks every node of the corpus: a valid span inside the
// file, children inside their parents, and — the strong check — that the
// source text of each expression's span [Pos, End) parses on its own to
// the same tree, and likewise for each top-level statement.
func TestPositions(t *testing.T) {
	for _, fn := range corpus(t) {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		f, fset := mustParse(t, fn, src)
		checkSpans(t, fn, src, fset, f)
		for _, s := range f.Stmts {
			p, e := fset.Position(s.Pos()), fset.Position(s.End())
			text := src[p.Offset:e.Offset]
			got, err := ParseStmt(ast.NewFileSet(), "span", text)
			if err != nil || len(got) != 1 || sexpr(got[0]) != sexpr(s) {
				t.Errorf("%s: statement span %q does not reparse to the statement (%v)", p, text, err)
			}
		}
	}
}

func checkSpans(t *testing.T, fn string, src []byte, fset *ast.FileSet, f *ast.File) {
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		p, e := fset.Position(n.Pos()), fset.Position(n.End())
		if !p.IsValid() || !e.IsValid() || p.Offset > e.Offset || e.Offset > len(src) || p.Filename != fn {
			t.Errorf("%s: bad span %v..%v for %T", fn, p, e, n)
		} else if len(stack) > 0 {
			parent := stack[len(stack)-1]
			if n.Pos() < parent.Pos() || n.End() > parent.End() {
				t.Errorf("%s: %T span outside parent %T", p, n, parent)
			}
		}
		if x, ok := n.(ast.Expr); ok && reparsable(x) {
			text := string(src[p.Offset:e.Offset])
			y, err := ParseExpr(text)
			if err != nil || sexpr(y) != sexpr(x) {
				t.Errorf("%s: expression span %q reparses as %v (%v), want %s", p, text, y, err, sexpr(x))
			}
		}
		stack = append(stack, n)
		return true
	})
}

// reparsable excludes forms that are not expressions on their own.
func reparsable(x ast.Expr) bool {
	switch x.(type) {
	case *ast.SliceExpr, *ast.RangeExpr:
		return false
	}
	return true
}

// TestBOMColumns: a UTF-8 byte order mark does not shift the columns of the
// first line; offsets still index the file's bytes.
func TestBOMColumns(t *testing.T) {
	src := []byte("\uFEFFparam a = )\nparam b = 1")
	_, err := ParseFile(ast.NewFileSet(), "bom.fg", src)
	list, ok := err.(ast.ErrorList)
	if !ok || len(list) != 1 {
		t.Fatalf("err = %v", err)
	}
	if p := list[0].Pos; p.Line != 1 || p.Column != 11 || src[p.Offset] != ')' {
		t.Errorf("error at %d:%d (offset %d), want 1:11 at the `)`", p.Line, p.Column, p.Offset)
	}
	fset := ast.NewFileSet()
	f, err := ParseFile(fset, "bom.fg", []byte("\uFEFFparam a = 1"))
	if err != nil {
		t.Fatal(err)
	}
	if p := fset.Position(f.Stmts[0].Pos()); p.Column != 1 || p.Offset != 3 {
		t.Errorf("statement at column %d offset %d, want 1 and 3", p.Column, p.Offset)
	}
}
