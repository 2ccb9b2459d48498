package fg

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAPIHasNoInternalTypes: no exported declaration of the package (a
// function's signature, a method, an exported field or alias) mentions a
// type of compile, infer or an internal package; users get this package's
// types (an ExpectResult is package expect's, whose fields are plain).
func TestAPIHasNoInternalTypes(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		hidden := hiddenImports(f)
		for _, d := range f.Decls {
			for _, n := range exportedParts(d) {
				ast.Inspect(n, func(x ast.Node) bool {
					if s, ok := x.(*ast.SelectorExpr); ok {
						if id, ok := s.X.(*ast.Ident); ok && hidden[id.Name] {
							t.Errorf("%s: exported API uses %s.%s", fset.Position(s.Pos()), id.Name, s.Sel.Name)
						}
					}
					return true
				})
			}
		}
	}
}

// hiddenImports names the file's imports of compile, infer (and its
// subpackages) and internal packages.
func hiddenImports(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if !strings.HasPrefix(p, "github.com/fg-infer/fg/") {
			continue
		}
		rel := strings.TrimPrefix(p, "github.com/fg-infer/fg/")
		if rel == "compile" || rel == "infer" || strings.HasPrefix(rel, "infer/") || strings.HasPrefix(rel, "internal/") {
			name := rel[strings.LastIndex(rel, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			out[name] = true
		}
	}
	return out
}

// exportedParts returns what an exported declaration shows users: the
// signature of an exported function or method, the exported fields of an
// exported struct, the type of an exported alias or named non-struct type.
func exportedParts(d ast.Decl) []ast.Node {
	var out []ast.Node
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.IsExported() {
			out = append(out, d.Type)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				out = append(out, ts.Type)
				continue
			}
			for _, fl := range st.Fields.List {
				for _, n := range fl.Names {
					if n.IsExported() {
						out = append(out, fl.Type)
					}
				}
			}
		}
	}
	return out
}
