package compile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/lang/ast"
)

// TestErrorFiles compiles every testdata/errors/*.fg file and checks that
// the errors are exactly those announced inline with `### "regexp"` on the
// offending line (starlark-go style): every expectation matches an error on
// its line, and every error is expected.
func TestErrorFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.fg")
	if len(files) == 0 {
		t.Fatal("no error testdata")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { checkErrorFile(t, path) })
	}
}

func checkErrorFile(t *testing.T, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := testkit.Markers(t, src) // line 0: an error on the file as a whole
	_, err = CompileFile(path, Options{Set: setFor(path)})
	var list ast.ErrorList
	if err != nil && !errors.As(err, &list) {
		t.Fatalf("error is %T, not ast.ErrorList: %v", err, err)
	}
	for _, e := range list {
		if !e.Pos.IsValid() && (e.Pos.Filename != path || len(want[0]) == 0) {
			t.Errorf("error without a position: %v", e)
		}
		if strings.Contains(e.Msg, "internal compiler error") {
			t.Errorf("panic: %v", e)
		}
		rxs := want[e.Pos.Line]
		matched := -1
		for k, rx := range rxs {
			if rx.MatchString(e.Msg) {
				matched = k
				break
			}
		}
		if matched < 0 {
			t.Errorf("unexpected error %v", e)
			continue
		}
		want[e.Pos.Line] = append(rxs[:matched], rxs[matched+1:]...)
	}
	for line, rxs := range want {
		for _, rx := range rxs {
			t.Errorf("%s:%d: no error matching %q", path, line, rx)
		}
	}
}

// setFor gives some testdata files --set overrides (named in the file name).
func setFor(path string) map[string]string {
	if strings.Contains(path, "set_") {
		return map[string]string{"eps": "0.7", "nosuch": "1"}
	}
	return nil
}

// TestTooManyErrors: compilation stops after ast.MaxErrors errors (each
// undefined name would otherwise cost a search for suggestions among 10⁴
// names).
func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&b, "param p%d = q%d\n", i, i)
	}
	_, err := CompileSource("many.fg", []byte(b.String()), Options{})
	var list ast.ErrorList
	if !errors.As(err, &list) || len(list) != ast.MaxErrors+1 {
		t.Fatalf("%d errors: %v", len(list), err)
	}
	if !strings.Contains(list[len(list)-1].Msg, "too many errors") {
		t.Errorf("last error %v", list[len(list)-1])
	}
}
