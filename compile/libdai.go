package compile

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// CompileLibDAI compiles a libDAI .fg factor-graph file into a Model. Every
// variable becomes a scalar latent named x<label> (label 3 → `x3`, so
// `expect prob(x3) > 0.5` works) of domain cat(k), whose states 0..k−1 are
// libDAI's; each factor keeps its table in libDAI order. Such a file has no
// infer lines, so the model gets two: `infer bp` and `infer exact`
// (--method replaces them).
func CompileLibDAI(path string, opt Options) (*Model, error) {
	src, err := readFile(opt.FS, path)
	if err != nil {
		p := ast.Pos{Filename: path}
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: "cannot read libDAI file: " + notExist(err).Error()}}
	}
	return compileLibDAI(path, src, opt)
}

func compileLibDAI(filename string, src []byte, opt Options) (*Model, error) {
	g, err := graph.ParseLibDAI(bytes.NewReader(src), filename)
	if err != nil {
		var e *ast.Error
		if errors.As(err, &e) {
			return nil, ast.ErrorList{e}
		}
		p := ast.Pos{Filename: filename}
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: err.Error()}}
	}
	renameLibDAI(g)
	m := &Model{Name: strings.TrimSuffix(filepath.Base(filename), filepath.Ext(filename)), Graph: g,
		Params: map[string]Value{}, Data: map[string]Value{}, opt: opt, src: src, filename: filename}
	start := ast.Pos{Filename: filename, Line: 1, Column: 1}
	for _, method := range []infer.Method{infer.MethodBP, infer.MethodExact} {
		s := &InferSpec{Label: string(method), Method: method, Options: map[string]string{}, Pos: start,
			Approx: infer.Scheme{Kind: infer.SchemeExact}}
		(&compiler{}).defaults(s)
		if method == infer.MethodBP {
			s.Settings.Divergence = infer.KL{}
		}
		m.Infers = append(m.Infers, s)
	}
	return m, nil
}

// renameLibDAI names latents x<label> and factors table(x<a>, x<b>, ...).
func renameLibDAI(g *graph.Graph) {
	for i := range g.Latents {
		g.Latents[i].Name = "x" + g.Latents[i].Name
	}
	for i, f := range g.Factors() {
		names := make([]string, len(f.Vars))
		for j, v := range f.Vars {
			names[j] = g.VarName(v)
		}
		f.Label = "table(" + strings.Join(names, ", ") + ")"
		g.SetFactor(i, f)
	}
}
