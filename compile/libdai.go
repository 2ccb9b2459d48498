package compile

import (
	"bytes"
	"errors"
	"fmt"
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

// libdaiBytes is the memory one factor or one variable of a libDAI graph
// costs from its names to the end of bp and exact (the factor's label,
// the latent per variable, the engines' messages, cliques and the
// results' marginals): 1.0 GB resident after reading 10⁶ binary pairwise
// factors over 10⁶ variables, 2.5 GB at the end of exact, about half of
// it live; rounded up. Charged after the file is read, before anything
// else is built.
const libdaiBytes = 640

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
	if need, budget := int64(g.NumFactors()+len(g.Vars))*libdaiBytes, infer.MemoryBudget(); need > budget {
		p := ast.Pos{Filename: filename, Line: 1, Column: 1}
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: fmt.Sprintf("the libDAI graph has %d factors over %d variables: about %s through bp and exact at %d bytes each, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
			g.NumFactors(), len(g.Vars), infer.FormatBytes(need), libdaiBytes, infer.FormatBytes(budget))}}
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
