package parser

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/lang/ast"
)

// TestErrors checks every testdata/errors/*.fg file: each error must be
// expected on its line and each expectation must be met.
func TestErrors(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.fg")
	if len(files) == 0 {
		t.Fatal("no error test files")
	}
	for _, fn := range files {
		t.Run(filepath.Base(fn), func(t *testing.T) {
			src, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			want := testkit.Markers(t, src)
			_, perr := ParseFile(ast.NewFileSet(), fn, src)
			var list ast.ErrorList
			if !errors.As(perr, &list) {
				t.Fatalf("want an ast.ErrorList, got %v", perr)
			}
			checkErrors(t, src, list, want)
		})
	}
}

func checkErrors(t *testing.T, src []byte, list ast.ErrorList, want map[int][]*regexp.Regexp) {
	t.Helper()
	met := map[*regexp.Regexp]bool{}
	for _, e := range list {
		checkErrorPos(t, src, e)
		ok := false
		for _, rx := range want[e.Pos.Line] {
			if rx.MatchString(e.Msg) {
				ok, met[rx] = true, true
			}
		}
		if !ok {
			t.Errorf("unexpected error %v", e)
		}
	}
	for line, rxs := range want {
		for _, rx := range rxs {
			if !met[rx] {
				t.Errorf("line %d: no error matching %q", line, rx)
			}
		}
	}
}

// checkErrorPos verifies that an error span lies within the file.
func checkErrorPos(t *testing.T, src []byte, e *ast.Error) {
	t.Helper()
	lines := strings.Count(string(src), "\n") + 1
	if !e.Pos.IsValid() || e.Pos.Line > lines || e.Pos.Offset < 0 || e.Pos.Offset > len(src) {
		t.Errorf("error with invalid position: %v (file has %d lines, %d bytes)", e, lines, len(src))
	}
	if e.End.IsValid() && e.End.Offset < e.Pos.Offset {
		t.Errorf("error span ends before it starts: %v", e)
	}
}

// TestTooManyErrors: a file of 10⁴ bad lines reports ast.MaxErrors errors
// and says that it stopped; no error is lost silently.
func TestTooManyErrors(t *testing.T) {
	for _, src := range []string{strings.Repeat("param a = \n", 10_000), strings.Repeat("$", 10_000)} {
		_, err := ParseFile(ast.NewFileSet(), "many.fg", []byte(src))
		var list ast.ErrorList
		if !errors.As(err, &list) || len(list) != ast.MaxErrors+1 {
			t.Fatalf("%d errors: %v", len(list), err)
		}
		if last := list[len(list)-1]; last.Msg != "too many errors: only the first 100 are shown" || !last.Pos.IsValid() {
			t.Errorf("last error %v", last)
		}
	}
}
