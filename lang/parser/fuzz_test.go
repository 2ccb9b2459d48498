package parser

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// FuzzParse: ParseFile never panics, every error has a valid position
// inside the input, and a file that parses formats to a file that parses
// to the same tree, with idempotent formatting. Seeds: the corpus, the
// error files and testdata/fuzz. Run with go test -fuzz=FuzzParse.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/errors/*.fg")
	seeds = append(seeds, corpus(f)...)
	for _, fn := range seeds {
		if src, err := os.ReadFile(fn); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fset := ast.NewFileSet()
		file, err := ParseFile(fset, "fuzz.fg", src)
		if err != nil {
			checkFuzzErrors(t, src, err)
			return
		}
		out := ast.Format(fset, file)
		fset2 := ast.NewFileSet()
		file2, err := ParseFile(fset2, "fuzz.fg", out)
		if err != nil {
			t.Fatalf("formatted output does not parse: %v\n%s", err, out)
		}
		if a, b := fileS(file), fileS(file2); a != b {
			t.Fatalf("tree changed by formatting:\n%s\nvs\n%s", a, b)
		}
		if a, b := sortedComments(file), sortedComments(file2); a != b {
			t.Fatalf("comments lost or changed by formatting:\n%s\nvs\n%s", a, b)
		}
		if out2 := ast.Format(fset2, file2); !bytes.Equal(out, out2) {
			t.Fatalf("format not idempotent:\n%s\nvs\n%s", out, out2)
		}
	})
}

func checkFuzzErrors(t *testing.T, src []byte, err error) {
	var list ast.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error is not a non-empty ast.ErrorList: %v", err)
	}
	lines := strings.Count(string(src), "\n") + 1
	for _, e := range list {
		if !e.Pos.IsValid() || e.Pos.Line > lines || e.Pos.Offset < 0 || e.Pos.Offset > len(src) || e.Pos.Filename != "fuzz.fg" {
			t.Fatalf("error with invalid position: %v (input has %d lines)", e, lines)
		}
		if strings.Contains(e.Msg, "internal parser error") {
			t.Fatalf("internal error: %v", e)
		}
	}
}

// sortedComments lists comment texts as a multiset: formatting may move a
// comment out of a one-line expression in front of its statement, but
// never drops or alters one.
func sortedComments(f *ast.File) string {
	texts := make([]string, len(f.Comments))
	for i, c := range f.Comments {
		texts[i] = strings.TrimRight(c.Text, " \t")
	}
	sort.Strings(texts)
	return strings.Join(texts, "\n")
}
