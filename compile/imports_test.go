package compile

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoEngineImports: compile, and the packages below it in the phase
// order, import no inference engine (docs/architecture.md): an engine's
// limits and schedules are in package infer's method registry, and the
// engines are reached through infer/run.
func TestNoEngineImports(t *testing.T) {
	const engines = "github.com/fg-infer/fg/infer/"
	for _, dir := range []string{".", "../factor", "../graph", "../stdlib", "../infer"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, engines) {
					t.Errorf("%s imports the engine %s", f, p)
				}
			}
		}
	}
}
