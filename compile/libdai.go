package compile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
)

// CompileLibDAI compiles a libDAI .fg factor-graph file into a Model. Every
// variable becomes a scalar latent named x<label> (label 3 → `x3`, so
// `expect prob(x3) > 0.5` works) of domain cat(k), whose states 0..k−1 are
// libDAI's; each factor keeps its table in libDAI order and is labelled
// table(x3, x7) in results. Such a file has no infer lines, so the model
// gets two: `infer bp` and `infer exact` (--method replaces them:
// Options.MethodsReplaceDefaults). The exact line is checked here, as an
// `infer exact` line of a model is: a graph whose treewidth lower bound puts
// every elimination order's clique table over infer.MaxCliqueTable is
// refused at the file's first line, before any ordering (unless
// Options.Only leaves the exact line out). The file
// is read as a stream (graph.ParseLibDAINamed): its text is not held, and
// Recompile reads it again.
func CompileLibDAI(path string, opt Options) (*Model, error) {
	r, err := safefile.Open(opt.FS, path, safefile.MaxLibDAI)
	if err != nil {
		p := ast.Position{Filename: path}
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: "cannot read libDAI file: " + notExist(err).Error()}}
	}
	defer r.Close()
	m, err := compileLibDAI(path, r, opt)
	if m != nil {
		m.libdaiFile = true
	}
	return m, err
}

// libdaiBytes is the memory one factor or one variable of a libDAI graph
// costs from its names to the end of bp and exact (the engines' messages,
// cliques and the results' marginals), an upper bound measured with the
// per-factor reader (1.0 GB resident after reading 10⁶ binary pairwise
// factors over 10⁶ variables, 2.5 GB at the end of exact); the streaming
// reader's compact runs cost less. Charged after the file is read, before
// anything else is built.
const libdaiBytes = 640

// compileLibDAI compiles the libDAI text read from r.
func compileLibDAI(filename string, r io.Reader, opt Options) (*Model, error) {
	g, err := parseLibDAI(ast.NewFileSet(), filename, r)
	if err != nil {
		return nil, ast.ErrorList{err}
	}
	if need, budget := int64(g.NumFactors()+len(g.Vars))*libdaiBytes, infer.MemoryBudget(); need > budget {
		p := ast.Position{Filename: filename, Line: 1, Column: 1}
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: fmt.Sprintf("the libDAI graph has %d factors over %d variables: about %s through bp and exact at %d bytes each, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
			g.NumFactors(), len(g.Vars), infer.FormatBytes(need), libdaiBytes, infer.FormatBytes(budget))}}
	}
	m := &Model{Name: strings.TrimSuffix(filepath.Base(filename), filepath.Ext(filename)), Fset: g.Fset, Graph: g,
		Params: map[string]Value{}, Data: map[string]Value{}, opt: opt, filename: filename}
	start := g.Fset.Files()[0].Pos(0)
	if opt.MethodsReplaceDefaults {
		return m, nil
	}
	if err := checkLibDAIExact(g, opt); err != nil {
		p := g.Fset.Position(start)
		return nil, ast.ErrorList{{Pos: p, End: p, Msg: err.Error()}}
	}
	for _, method := range []infer.Method{infer.MethodBP, infer.MethodExact} {
		s := &InferSpec{Label: string(method), Method: method, Options: map[string]string{}, Pos: start}
		(&compiler{}).defaults(s)
		if method == infer.MethodBP {
			s.Settings.Divergence = infer.KL{}
		}
		m.Infers = append(m.Infers, s)
	}
	return m, nil
}

// checkLibDAIExact refuses the default exact line of a libDAI graph whose
// junction tree would be over the clique budget (graph.CheckCliqueBudget:
// an exact recogniser for grids, bramble and minor-min-width lower bounds,
// each O(n log n)-ish on sparse graphs, where the ordering they save can
// take minutes), as the junction-tree engine's Supports (checkCliqueBudget)
// refuses a written `infer exact`.
func checkLibDAIExact(g *graph.Graph, opt Options) error {
	if len(opt.Only) > 0 && !slices.Contains(opt.Only, string(infer.MethodExact)) {
		return nil
	}
	if err := g.CheckCliqueBudget(context.Background(), infer.MaxCliqueTable); err != nil {
		return fmt.Errorf("infer exact (a default line of a libDAI file): %v; run it with --method bp (or --only bp)", err)
	}
	return nil
}

// compileLibDAISource compiles libDAI text held in memory (a model given
// as source); Recompile compiles src again.
func compileLibDAISource(filename string, src []byte, opt Options) (*Model, error) {
	m, err := compileLibDAI(filename, bytes.NewReader(src), opt)
	if m != nil {
		m.src = src
	}
	return m, err
}

// parseLibDAI reads a libDAI graph whose latents are named x<label>,
// adding the file to fset; the error is an *ast.Error with the file's
// position.
func parseLibDAI(fset *ast.FileSet, filename string, r io.Reader) (*graph.Graph, *ast.Error) {
	g, err := graph.ParseLibDAINamed(fset, r, filename, "x")
	if err != nil {
		var e *ast.Error
		if errors.As(err, &e) {
			return nil, e
		}
		p := ast.Position{Filename: filename}
		return nil, &ast.Error{Pos: p, End: p, Msg: err.Error()}
	}
	return g, nil
}
