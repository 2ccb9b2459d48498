package parser

import (
	"os"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

func BenchmarkParseFile(b *testing.B) {
	src, err := os.ReadFile("testdata/gpc_csv.fg")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ParseFile(ast.NewFileSet(), "gpc_csv.fg", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	src, err := os.ReadFile("testdata/comments.fg")
	if err != nil {
		b.Fatal(err)
	}
	fset := ast.NewFileSet()
	f, err := ParseFile(fset, "comments.fg", src)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ast.Format(fset, f)
	}
}
