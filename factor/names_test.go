package factor

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// belowFactor are the folders of packages below factor in the phase order
// (docs/architecture.md), which cannot import it: graph reads libDAI files
// into table factors, stdlib/loss names its loss functions.
var belowFactor = []string{"graph", "stdlib", "lang", "families", "internal"}

// allowed are quoted strings that coincide with a kind's name but mean
// something else: a command-line flag of an experiment.
var allowed = map[string]string{
	"experiments/learn_gpml/main.go:step": "the -step flag",
	"experiments/roche/main.go:beta":      "the -beta flag (an inverse temperature)",
}

// TestNoKindNamesOutsideFactor fails when a quoted factor-kind name (a
// distribution, potential or loss; not exp, which is also a math function)
// appears in Go code outside package factor and tests: compile, the
// engines, infer/run and cmd/fg dispatch on the kinds' types, not on
// strings.
func TestNoKindNamesOutsideFactor(t *testing.T) {
	names := map[string]bool{}
	for _, k := range All() {
		names[k.Name()] = true
	}
	delete(names, Exp{}.Name())
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (rel == "factor" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || skipped(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, s := range quoted(t, path) {
			if names[s.text] && allowed[filepath.ToSlash(rel)+":"+s.text] == "" {
				t.Errorf("%s:%d: quoted factor kind %q: dispatch on package factor's types instead", rel, s.line, s.text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func skipped(rel string) bool {
	for _, b := range belowFactor {
		if filepath.ToSlash(rel) == b {
			return true
		}
	}
	return false
}

type strLit struct {
	text string
	line int
}

// quoted returns the string literals of a Go file (comments excluded).
func quoted(t *testing.T, path string) []strLit {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	var out []strLit
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.STRING {
			if v, err := strconv.Unquote(lit); err == nil {
				out = append(out, strLit{v, fset.Position(pos).Line})
			}
		}
	}
}

// nameCompareAllowed are the comparisons of a Name() that
// TestNoKindNameComparisons lets stand (FILE:EXPRESSION): a name that is
// the input (a user's source name looked up among the kinds), or a name
// that is not a kind's.
var nameCompareAllowed = map[string]string{
	"factor/kind.go:k.Name() == name":            "Find: the source name looked up among the kinds",
	"compile/net_detect.go:k.Name() != name":     "netOnly: the source name looked up among the kinds",
	"cmd/fg/testcmd.go:d.Name() == \"testdata\"": "a directory's name",
}

// TestNoKindNameComparisons fails when Go code outside tests compares a
// Name() with == or != (a kind read back by its name, e.g. `b.Name ==
// (factor.GP{}).Name()`, or two kinds compared by name): a kind in hand is
// compared by its type (a type switch, graph.SameKind), and a builtin
// name from source is turned into its kind once (Lookup, Find).
func TestNoKindNameComparisons(t *testing.T) {
	root := ".."
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, c := range nameCompares(t, path) {
			key := rel + ":" + c.text
			if nameCompareAllowed[key] == "" {
				t.Errorf("%s:%d: %s compares a Name(): compare kinds by type (type switch, graph.SameKind)", rel, c.line, c.text)
			}
			seen[key] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range nameCompareAllowed {
		if !seen[k] {
			t.Errorf("allow-list entry %q matches nothing: remove it", k)
		}
	}
}

// nameCompares returns the == and != comparisons of a Go file one of
// whose sides is a call of a method Name without arguments.
func nameCompares(t *testing.T, path string) []strLit {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	isName := func(e ast.Expr) bool {
		c, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(c.Args) != 0 {
			return false
		}
		s, ok := c.Fun.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Name"
	}
	var out []strLit
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if ok && (b.Op == token.EQL || b.Op == token.NEQ) && (isName(b.X) || isName(b.Y)) {
			from, to := fset.Position(b.Pos()), fset.Position(b.End())
			out = append(out, strLit{string(src[from.Offset:to.Offset]), from.Line})
		}
		return true
	})
	return out
}
