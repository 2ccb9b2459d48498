package compile

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg/lang/ast"
)

// analyseFS reads root from fsys with its imports and analyses it, as a
// compilation does before lowering; it returns the analysis, the files'
// load errors, and the compiler for rendering positions.
func analyseFS(t *testing.T, fsys fstest.MapFS, root string) (*analysis, ast.ErrorList, *compiler) {
	t.Helper()
	c := newCompiler(Options{FS: fsys})
	f := c.parse(root, fsys[root].Data, nil)
	if f == nil {
		t.Fatalf("parse %s: %v", root, c.errs)
	}
	return c.analyseFiles(root, f), c.errs, c
}

// mustAnalyse analyses m.fg of fsys, failing the test on a load error.
func mustAnalyse(t *testing.T, fsys fstest.MapFS) *analysis {
	t.Helper()
	a, errs, _ := analyseFS(t, fsys, "m.fg")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return a
}

// equalLines fails the test when got and want differ, showing both.
func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// describe renders what analysis decided: one line per declaration
// ("KIND NAME FILE:LINE:COL", with its error after " ! "), then one per
// plate variable that has an error.
func (a *analysis) describe() []string {
	var out []string
	ids := make(map[*symbol]*ast.Ident, len(a.byIdent))
	for id, sym := range a.byIdent {
		ids[sym] = id
	}
	for _, sym := range a.symbols {
		line := fmt.Sprintf("%s %s %s", bindNames[sym.kind], sym.name, a.fset.Position(sym.pos))
		if msg := a.declError(ids[sym]); msg != "" {
			line += " ! " + msg
		}
		out = append(out, line)
	}
	var shadows []string
	for v := range a.shadows {
		shadows = append(shadows, fmt.Sprintf("plate %s %s ! %s", v.Name, a.fset.Position(v.Pos()), a.plateVarError(v)))
	}
	slices.Sort(shadows)
	return append(out, shadows...)
}

// TestAnalysis: semantic analysis finds every top-level declaration in
// lowering order (imported ones where the import stands), the first
// declaration a redeclaration repeats, latents named like builtins, and
// plate variables that shadow a global declared before the plate or a
// variable of an enclosing plate — and nothing else.
func TestAnalysis(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"kinds and order", `data X = [1, 2]
param s = 1
latent w: real[2] ~ normal(0, s)
infer ep`, []string{
			"data X m.fg:1:6",
			"param s m.fg:2:7",
			"latent w m.fg:3:8",
		}},
		{"redeclarations name the first", `data x = 1
param x = 2
latent x: real[2]
data y = 1
data y = 2`, []string{
			"data x m.fg:1:6",
			"param x m.fg:2:7 ! param `x` redeclared (first declared as data at m.fg:1:6)",
			"latent x m.fg:3:8 ! latent `x` redeclared (first declared as data at m.fg:1:6)",
			"data y m.fg:4:6",
			"data y m.fg:5:6 ! data `y` redeclared (first declared as data at m.fg:4:6)",
		}},
		{"a latent named like a builtin", `latent dot: real[2]
latent mean: real[2]
data exp = 1`, []string{
			"latent dot m.fg:1:8 ! latent `dot` has the name of a builtin; choose another name",
			"latent mean m.fg:2:8", // an accessor: a name only inside expect
			"data exp m.fg:3:6",    // data may be named like a function
		}},
		{"builtin clash before redeclaration", `data dot = 1
latent dot: real[2]`, []string{
			"data dot m.fg:1:6",
			"latent dot m.fg:2:8 ! latent `dot` has the name of a builtin; choose another name",
		}},
		{"plate variables", `latent w: real[3]
for i in 0..3 { w[i] ~ normal(0, 1) }
for w in 0..3 { for i in 0..1 { for j in 0..1 { for i in 0..1 { } } } }
for (k, k) in edges(G) { }
for n in 0..1 { }
data n = 1`, []string{
			"latent w m.fg:1:8",
			"data n m.fg:6:6",
			"plate i m.fg:3:53 ! plate variable `i` shadows a name already in scope",
			"plate w m.fg:3:5 ! plate variable `w` shadows a name already in scope",
		}},
		{"declarations in plates are not symbols", `for i in 0..2 { data z = 1 }`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			equalLines(t, mustAnalyse(t, fstest.MapFS{"m.fg": {Data: []byte(tc.src)}}).describe(), tc.want)
		})
	}
}

// TestAnalysisImports: the files are read once each, depth first, and
// their declarations are ordered where their import statements stand; a
// diamond brings its file once, a cycle, a missing file and a libDAI
// file are errors at the import, and an import that failed brings no
// declarations.
func TestAnalysisImports(t *testing.T) {
	fsys := fstest.MapFS{
		"m.fg": {Data: []byte(`data a = 1
import "b.fg"
import "c.fg"
import "gone.fg"
import "g.fg"
param z = 1`)},
		"b.fg":   {Data: []byte("import \"c.fg\"\ndata b = 2\nfor z in 0..1 { }")},
		"c.fg":   {Data: []byte("import \"m.fg\"\nparam a = 3")},
		"g.fg":   {Data: []byte("1\n2\n")},
		"unused": {Data: []byte("data u = 1")},
	}
	a, errs, c := analyseFS(t, fsys, "m.fg")
	var files []string
	for _, f := range a.files {
		files = append(files, f.Filename)
	}
	if want := []string{"m.fg", "b.fg", "c.fg"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	want := []string{
		"data a m.fg:1:6",
		"param a c.fg:2:7 ! param `a` redeclared (first declared as data at m.fg:1:6)",
		"data b b.fg:2:6",
		"param z m.fg:6:7",
	}
	if got := a.describe(); !slices.Equal(got, want) {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	// z is declared after b.fg's plate: the plate variable shadows nothing.
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Pos.String()+": "+e.Msg)
	}
	wantErrs := []string{
		"c.fg:1:8: import cycle: m.fg → b.fg → c.fg → m.fg",
		`m.fg:4:8: import "gone.fg": file not found`,
		`m.fg:5:8: import "g.fg": a libDAI file cannot be imported; use data G = libdai("g.fg")`,
	}
	slices.Sort(msgs)
	if !slices.Equal(msgs, wantErrs) {
		t.Errorf("errors\n\t%s\nwant\n\t%s", strings.Join(msgs, "\n\t"), strings.Join(wantErrs, "\n\t"))
	}
	if got := a.params(); !slices.Equal(got, []string{"z"}) {
		t.Errorf("params %v, want [z] (a is first declared as data)", got)
	}
	if !a.declaresParam("a") || a.declaresParam("b") {
		t.Error("declaresParam: want a (declared as a param, twice) and not b (data)")
	}
	if len(c.m.Files) != 3 {
		t.Errorf("%d files parsed, want 3 (each once)", len(c.m.Files))
	}
	if a.net {
		t.Error("a model of data and params lowers to the typed factor graph")
	}
}

// TestAnalysisNet: a Beta prior in an imported file makes the whole model
// lower to the typed factor graph; the same model with a normal prior
// does not.
func TestAnalysisNet(t *testing.T) {
	for prior, want := range map[string]bool{"beta(2, 2)": true, "normal(0, 1)": false} {
		fsys := fstest.MapFS{
			"m.fg":     {Data: []byte("import \"prior.fg\"\ndata y: spin[2] = [1, -1]\nfor i in 0..2 { y[i] ~ probit(p) }")},
			"prior.fg": {Data: []byte("latent p: real ~ " + prior)},
		}
		a, errs, _ := analyseFS(t, fsys, "m.fg")
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if a.net != want {
			t.Errorf("prior %s: net %v, want %v", prior, a.net, want)
		}
	}
}

// TestOverridesUnknown: the overrides that name no param are reported in
// the order of their names (a map's order before), each listing the
// params declared; a param declared twice counts once.
func TestOverridesUnknown(t *testing.T) {
	src := "param s = 1\nparam s = 2\nlatent w: real[1] ~ normal(0, 1)\ninfer ep"
	set := map[string]string{"zeta": "1", "alpha": "1", "beta": "1", "s": "3"}
	for range 5 {
		_, err := CompileSource("m.fg", []byte(src), Options{Set: set})
		list, ok := err.(ast.ErrorList)
		if !ok {
			t.Fatalf("error %v, want an ast.ErrorList", err)
		}
		var msgs []string
		for _, e := range list {
			msgs = append(msgs, e.Msg)
		}
		want := []string{
			"--set alpha: the model has no param `alpha` (params: `s`)",
			"--set beta: the model has no param `beta` (params: `s`)",
			"--set zeta: the model has no param `zeta` (params: `s`)",
			"param `s` redeclared (first declared as param at m.fg:1:7)",
		}
		if !slices.Equal(msgs, want) {
			t.Fatalf("errors\n\t%s\nwant\n\t%s", strings.Join(msgs, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
}

// BenchmarkCompileImports compiles examples/imports/probit.fg, whose
// data, latent and likelihood come from an imported file: the import is
// read and parsed once, before analysis.
func BenchmarkCompileImports(b *testing.B) {
	for b.Loop() {
		if _, err := CompileFile("../examples/imports/probit.fg", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
