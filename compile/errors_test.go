package compile

import (
	"errors"
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
