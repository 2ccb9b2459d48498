package parser

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/lang/ast"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden and testdata/grammar.ebnf")

// corpus lists the valid model files: testdata/*.fg and, when present,
// the project's examples (written in parallel by another engineer).
func corpus(t testing.TB) []string {
	files, _ := filepath.Glob("testdata/*.fg")
	examples, _ := filepath.Glob("../../examples/*.fg")
	sub, _ := filepath.Glob("../../examples/*/*.fg")
	var out []string
	for _, fn := range append(append(files, examples...), sub...) {
		if src, err := os.ReadFile(fn); err == nil && !isLibDAI(src) {
			out = append(out, fn)
		}
	}
	if len(out) == 0 {
		t.Fatal("empty corpus")
	}
	return out
}

// isLibDAI recognises libDAI's factor-graph format, which shares the .fg
// extension: its first significant line is the factor count.
func isLibDAI(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, err := strconv.Atoi(line)
		return err == nil
	}
	return false
}

func mustParse(t *testing.T, name string, src []byte) (*ast.File, *ast.FileSet) {
	t.Helper()
	fset := ast.NewFileSet()
	f, err := ParseFile(fset, name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f, fset
}

// swap puts the file set first, as ast.Format takes it.
func swap(f *ast.File, fset *ast.FileSet) (*ast.FileSet, *ast.File) { return fset, f }

// TestFormatGolden compares ast.Format of testdata/X.fg to testdata/X.golden.
func TestFormatGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.fg")
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		got := ast.Format(swap(mustParse(t, fn, src)))
		testkit.Golden(t, strings.TrimSuffix(fn, ".fg")+".golden", got, *update)
	}
}

// TestRoundTrip checks, on the whole corpus, that formatting is idempotent,
// that the formatted file parses to the same tree (up to positions), and
// that every comment survives in order.
func TestRoundTrip(t *testing.T) {
	for _, fn := range corpus(t) {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		f1, fset1 := mustParse(t, fn, src)
		out1 := ast.Format(fset1, f1)
		f2, fset2 := mustParse(t, fn+" (formatted)", out1)
		if a, b := fileS(f1), fileS(f2); a != b {
			t.Errorf("%s: tree changed by formatting:\n%s\nvs\n%s", fn, a, b)
		}
		if a, b := commentTexts(f1), commentTexts(f2); a != b {
			t.Errorf("%s: comments changed:\n%s\nvs\n%s", fn, a, b)
		}
		if out2 := ast.Format(fset2, f2); !bytes.Equal(out1, out2) {
			t.Errorf("%s: format not idempotent:\n%s\nvs\n%s", fn, out1, out2)
		}
	}
}

func commentTexts(f *ast.File) string {
	var b strings.Builder
	for _, c := range f.Comments {
		b.WriteString(c.Text + "\n")
	}
	return b.String()
}

func TestEBNF(t *testing.T) {
	got := EBNF() + "\n"
	const path = "testdata/grammar.ebnf"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("grammar changed; review and run go test -update:\n%s", got)
	}
}
