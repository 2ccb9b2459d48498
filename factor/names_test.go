package factor

import (
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
