package infer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// registryFile is the one Go file that spells the names of methods,
// divergences, schedules, moment schemes and families.
const registryFile = "infer/names.go"

// keywordDirs are folders below package infer in the phase order whose
// Go code spells words that coincide with registry names but mean
// something else: the parser's statement keywords predict and learn.
var keywordDirs = []string{"lang"}

// registryNames are the names names.go spells.
func registryNames() map[string]bool {
	names := map[string]bool{string(ColumnPredict): true, string(ColumnLearn): true}
	for _, m := range Methods {
		names[string(m)] = true
	}
	for _, lists := range [][]string{divNames[1:], scheduleNames[:], schemeNames[:], familyNames[:], ExactMethods} {
		for _, n := range lists {
			names[n] = true
		}
	}
	return names
}

// TestNamesOnlyInRegistry fails when Go code outside names.go and tests
// compares a string with a method, divergence, schedule, scheme or family
// name (x == "ep", x != "kl", case "mcmc":): dispatch on the typed values
// of package infer (Method, DivFamily, Schedule, SchemeKind, Family) and
// the method registry instead.
func TestNamesOnlyInRegistry(t *testing.T) {
	names := registryNames()
	walkGo(t, func(rel, path string) {
		for _, c := range nameComparisons(t, path, names) {
			if allowed[rel+":"+c.name] != "" {
				continue
			}
			t.Errorf("%s:%d: %s: compare the typed values of package infer (names.go) instead", rel, c.line, c.text)
		}
	})
}

// walkGo calls f on every Go file of the module outside tests, testdata,
// the keyword folders and names.go, with its path relative to the root.
func walkGo(t *testing.T, f func(rel, path string)) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(mustRel(t, root, path))
		if d.IsDir() {
			if rel != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || isKeywordDir(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && rel != registryFile {
			f(rel, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// strictNames are the names no Go file outside names.go and tests may
// spell at all (methods and divergences), with the exceptions in allowed.
// alpha and t are left out: they are also parameter names (a Dirichlet's
// alpha); comparisons with them are still refused.
func strictNames() map[string]bool {
	names := map[string]bool{}
	for _, m := range Methods {
		names[string(m)] = true
	}
	for f, n := range divNames {
		if f := DivFamily(f); f != DivNone && f != DivAlpha && f != DivT {
			names[n] = true
		}
	}
	return names
}

// allowed are string literals (FILE:NAME) that coincide with a method name
// but mean something else, or are command-line text for the fg binary.
var allowed = map[string]string{
	"cmd/fgbench/main.go:ep":              "the -ep flag (EP problem sizes)",
	"bench/peers/main.go:ep":              "the -ep flag (GP EP sizes)",
	"bench/peers/main.go:bp":              "the bp case group of -cases",
	"bench/peers/libdai.go:exact":         "the --method text the fg binary is run with",
	"experiments/beforeafter/cases.go:ep": "a case's name and the --only label of the fg command it measures",
	"experiments/beforeafter/cases.go:bp": "a case's name",
}

// TestMethodNamesOnlyInRegistry fails when Go code outside names.go and
// tests spells a method or divergence name as a string literal (a message
// builds it from the typed value, a builtin takes it from infer).
func TestMethodNamesOnlyInRegistry(t *testing.T) {
	names := strictNames()
	walkGo(t, func(rel, path string) {
		for _, l := range literals(t, path) {
			if names[l.text] && allowed[rel+":"+l.text] == "" {
				t.Errorf("%s:%d: string %q: use the typed value of package infer (names.go)", rel, l.line, l.text)
			}
		}
	})
}

// literals returns the string literals of a Go file (comments excluded).
func literals(t *testing.T, path string) []comparison {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []comparison
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if s, err := strconv.Unquote(b.Value); err == nil {
				out = append(out, comparison{s, s, fset.Position(b.Pos()).Line})
			}
		}
		return true
	})
	return out
}

// TestNameComparisonsFound checks the scanner on a file with every form
// it must find, and with forms it must leave alone.
func TestNameComparisonsFound(t *testing.T) {
	src := `package p
func f(m, d, k string) {
	if m == "ep" || "kl" != d { }
	switch m {
	case "mcmc", "other":
	}
	if k == "sum" { }
	_ = map[string]int{"ep": 1}
}`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	got := nameComparisons(t, path, registryNames())
	want := []string{`== "ep"`, `!= "kl"`, `case "mcmc"`}
	if len(got) != len(want) {
		t.Fatalf("found %v, want %v", got, want)
	}
	for i, c := range got {
		if c.text != want[i] {
			t.Errorf("comparison %d: %q, want %q", i, c.text, want[i])
		}
	}
}

func isKeywordDir(rel string) bool {
	for _, k := range keywordDirs {
		if rel == k {
			return true
		}
	}
	return false
}

func mustRel(t *testing.T, root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

type comparison struct {
	text string // the comparison, or the literal
	name string // the name compared with
	line int
}

// nameComparisons returns the comparisons (==, !=, case) of a Go file
// with a string literal that is one of names.
func nameComparisons(t *testing.T, path string, names map[string]bool) []comparison {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	name := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil && names[s]
	}
	var out []comparison
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			for _, e := range []ast.Expr{n.X, n.Y} {
				if s, ok := name(e); ok {
					out = append(out, comparison{n.Op.String() + " " + strconv.Quote(s), s, fset.Position(e.Pos()).Line})
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if s, ok := name(e); ok {
					out = append(out, comparison{"case " + strconv.Quote(s), s, fset.Position(e.Pos()).Line})
				}
			}
		}
		return true
	})
	return out
}

func writeFile(path, src string) error { return os.WriteFile(path, []byte(src), 0o644) }
