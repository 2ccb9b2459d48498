package compile

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg/lang/ast"
)

// FuzzCompileSource: no input makes the compiler panic or report an error
// without a position. Files are read from an empty FS (csv and imports fail
// cleanly). Seeds are the examples and the error testdata.
func FuzzCompileSource(f *testing.F) {
	for _, p := range append(exampleFilesF(), globF("testdata/errors/*.fg")...) {
		if strings.HasSuffix(p, "sizes.fg") {
			continue // deliberately slow limits; tested in TestErrorFiles
		}
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := CompileSource("fuzz.fg", src, Options{FS: fstest.MapFS{}, maxCovBytes: 1 << 24})
		var list ast.ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Fatalf("error %T is not an ast.ErrorList", err)
		}
		for _, e := range list {
			if strings.Contains(e.Msg, "internal compiler error") || !e.Pos.IsValid() {
				t.Fatalf("%v", e)
			}
		}
	})
}
