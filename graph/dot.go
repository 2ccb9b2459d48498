package graph

import (
	"bufio"
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
func DOT(w io.Writer, g *Graph) error { return DOTFactors(w, g, g, nil) }

// DOTFactors is DOT with the factors of fl, a model's list of its factors
// over the variables of g (compile.Model.Factors), and more, DOT
// statements for nodes and edges drawn from outside g and fl (cmd/fg's
// libsvm plates), before the closing brace. fl is walked once (twice more
// for Layout on a graph of at most largeGraph nodes); the edges wait in a
// list of variables while the factors' nodes are written.
func DOTFactors(w io.Writer, g *Graph, fl FactorList, more []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	layout := layoutOf(g, fl)
	bw.WriteString("graph fg {\n  graph [layout=")
	bw.WriteString(layout)
	if layout != "dot" {
		bw.WriteString(", overlap=false, sep=\"+6\"")
	}
	bw.WriteString(", size=\"24,24\"];\n  node [fontsize=10, margin=\"0.03,0.02\"];\n")
	var line, name []byte
	for i := range g.Vars {
		name = g.AppendVarName(name[:0], i)
		line = strconv.AppendInt(append(line[:0], "  v"...), int64(i), 10)
		line = appendQuoted(append(line, " [shape=circle, label="...), name)
		bw.Write(append(line, "];\n"...))
	}
	nf := fl.NumFactors()
	ends := make([]int, 0, nf) // factor i's variables are vars[ends[i-1]:ends[i]]
	vars := make([]int, 0, nf)
	for i, f := range fl.LabelledFactors() {
		line = strconv.AppendInt(append(line[:0], "  f"...), int64(i), 10)
		line = append(line, " [shape=box, style=filled, fillcolor=gray85, height=0.25, width=0.25, label="...)
		line = appendQuoted(line, factorText(g, &f))
		line = appendQuoted(append(line, ", tooltip="...), f.Label)
		bw.Write(append(line, "];\n"...))
		vars = append(vars, f.Vars...)
		ends = append(ends, len(vars))
	}
	start := 0
	for i, end := range ends {
		for _, v := range vars[start:end] {
			line = strconv.AppendInt(append(line[:0], "  f"...), int64(i), 10)
			line = strconv.AppendInt(append(line, " -- v"...), int64(v), 10)
			bw.Write(append(line, ";\n"...))
		}
		start = end
	}
	bw.Write(more)
	bw.WriteString("}\n")
	return bw.Flush()
}

// appendQuoted appends strconv.Quote(string(s)) to b, copying s as it is
// when it has only printable ASCII other than the quote and backslash
// (a variable's name such as x[3, 4], a label such as normal(x[4])).
func appendQuoted[S ~string | ~[]byte](b []byte, s S) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, string(s))
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
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
	if n > largeGraph {
		return "sfdp" // without counting the edges
	}
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
		return f.Kind.Name()
	}
	ident := func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') }
	for _, tok := range strings.FieldsFunc(label[open+1:end], ident) {
		if !unicode.IsDigit(rune(tok[0])) && !hasVarOf(g, f.Vars, tok) {
			return label
		}
	}
	return f.Kind.Name()
}

// hasVarOf reports whether one of the variables vars is an element of the
// latent named name.
func hasVarOf(g *Graph, vars []int, name string) bool {
	for _, v := range vars {
		if v >= 0 && v < len(g.Vars) && g.Latents[g.Vars[v].Latent].Name == name {
			return true
		}
	}
	return false
}
