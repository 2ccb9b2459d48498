package graph

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// DOT writes g in Graphviz DOT as an undirected bipartite graph: variables
// are circles labelled with their names, factors are filled boxes labelled
// with what they observe (step(y[4]), the factor's label) or, when their
// label only repeats their own variables (ising(x[0], x[1]), normal(w)),
// with their kind; one edge per (factor, variable) incidence. The graph
// attributes choose the layout engine (Layout) so that `dot -Tpng` and any
// other Graphviz front end draw grids and domes as meshes, not strips.
func DOT(w io.Writer, g *Graph) error { return DOTFactors(w, g, g) }

// DOTFactors is DOT with the factors of fl, a model's list of its factors
// over the variables of g (compile.Model.Factors).
func DOTFactors(w io.Writer, g *Graph, fl FactorList) error {
	bw := bufio.NewWriter(w)
	layout := layoutOf(g, fl)
	fmt.Fprintf(bw, "graph fg {\n  graph [layout=%s", layout)
	if layout != "dot" {
		bw.WriteString(", overlap=false, sep=\"+6\"")
	}
	bw.WriteString(", size=\"24,24\"];\n  node [fontsize=10, margin=\"0.03,0.02\"];\n")
	for i := range g.Vars {
		fmt.Fprintf(bw, "  v%d [shape=circle, label=%s];\n", i, strconv.Quote(g.VarName(i)))
	}
	for i, f := range fl.LabelledFactors() {
		fmt.Fprintf(bw, "  f%d [shape=box, style=filled, fillcolor=gray85, height=0.25, width=0.25, label=%s, tooltip=%s];\n",
			i, strconv.Quote(factorText(g, &f)), strconv.Quote(f.Label))
	}
	for i, f := range fl.LabelledFactors() {
		for _, v := range f.Vars {
			fmt.Fprintf(bw, "  f%d -- v%d;\n", i, v)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// DOT is the method form of the package function DOT.
func (g *Graph) DOT(w io.Writer) error { return DOT(w, g) }

// Layout thresholds: dot's layered drawing suits small trees; a graph with
// loops (grids, the dome, Ising models) or many nodes is drawn by a force
// layout, neato's stress majorisation up to largeGraph nodes or
// denseGraph edges, sfdp's multiscale layout beyond (neato's time grows
// quadratically in the nodes: its time on a dense graph is in
// docs/performance.md, "Elimination orders").
const (
	smallLoopy = 12  // nodes up to which even a loopy graph is drawn by dot
	smallTree  = 60  // nodes up to which a tree is drawn by dot
	largeGraph = 500 // nodes above which sfdp replaces neato
	denseGraph = 300 // edges above which sfdp replaces neato
)

// Layout names the Graphviz engine DOT asks for: "dot" for small factor
// graphs without loops (and tiny loopy ones), "neato" for loopy or larger
// ones, "sfdp" beyond largeGraph nodes (variables plus factors) or
// denseGraph edges (factor–variable incidences).
func Layout(g *Graph) string { return layoutOf(g, g) }

// layoutOf is Layout of the variables of g and the factors of fl.
func layoutOf(g *Graph, fl FactorList) string {
	n, e := len(g.Vars)+fl.NumFactors(), 0
	for _, f := range fl.LabelledFactors() {
		e += len(f.Vars)
	}
	switch {
	case n > largeGraph, e > denseGraph:
		return "sfdp"
	case n <= smallLoopy, n <= smallTree && !hasCycle(len(g.Vars), fl.NumFactors(), fl.LabelledFactors()):
		return "dot"
	}
	return "neato"
}

// factorText is a factor node's label: the factor's Label when it names
// something besides the factor's own latents (an observation such as
// step(y[4])), else its kind.
func factorText(g *Graph, f *Factor) string {
	label := f.Label
	open, end := strings.IndexByte(label, '('), strings.LastIndexByte(label, ')')
	if open < 0 || end <= open {
		return f.Kind
	}
	own := map[string]bool{}
	for _, v := range f.Vars {
		if v >= 0 && v < len(g.Vars) {
			own[g.Latents[g.Vars[v].Latent].Name] = true
		}
	}
	ident := func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') }
	for _, tok := range strings.FieldsFunc(label[open+1:end], ident) {
		if !own[tok] && !unicode.IsDigit(rune(tok[0])) {
			return label
		}
	}
	return f.Kind
}
