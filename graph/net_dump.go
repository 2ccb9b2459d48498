package graph

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DumpNet writes a deterministic text rendering of n for golden tests and
// `fg graph --text`: one line per variable (its family and dimension) and
// per factor (kind, label, position, observation and edges), an edge
// written as its name and form:
//
//	var 0 p beta dim=1
//	factor 0 beta "beta(p)" at 3:1 x=p a=2 b=2
//	factor 1 bernoulli "bernoulli(y[0])" at 5:3 y=1 p=p
//	factor 7 normal "normal(y[2])" at 9:3 y=0.5 mean=z[2]?[mu[0] | mu[1]] prec=tau
func DumpNet(w io.Writer, n *Net) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "net vars=%d factors=%d\n", len(n.Vars), len(n.Factors))
	for i, v := range n.Vars {
		fmt.Fprintf(bw, "var %d %s %s dim=%d latent=%d elem=%d\n", i, v.Name, v.Family, v.Dim, v.Latent, v.Elem)
	}
	for i := range n.Factors {
		f := &n.Factors[i]
		at := n.Fset.Position(f.Pos)
		fmt.Fprintf(bw, "factor %d %s %q at %d:%d", i, f.Kind.Name(), f.Label, at.Line, at.Column)
		if f.Observed {
			fmt.Fprintf(bw, " y=%s", floatList(f.Y))
		}
		for _, e := range f.Edges {
			fmt.Fprintf(bw, " %s=%s", e.Name, n.EdgeString(e))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// EdgeString renders an edge's form with variable names: p, 2*w[0] + x
// + 1, [0.5, 0.5], z[3]?[mu[0] | mu[1]].
func (n *Net) EdgeString(e Edge) string {
	if e.Selected {
		parts := make([]string, len(e.Branches))
		for k, b := range e.Branches {
			parts[k] = n.EdgeString(b)
		}
		return n.varName(e.Sel) + "?[" + strings.Join(parts, " | ") + "]"
	}
	if len(e.Vars) == 0 {
		return floatList(e.Value)
	}
	if v, ok := e.IsVar(); ok {
		return n.varName(v)
	}
	var terms []string
	for k, v := range e.Vars {
		t := n.varName(v)
		if e.Coefs[k] != 1 {
			t = fmtFloat(e.Coefs[k]) + "*" + t
		}
		terms = append(terms, t)
	}
	if e.Const != 0 {
		terms = append(terms, fmtFloat(e.Const))
	}
	return strings.Join(terms, " + ")
}

func (n *Net) varName(v int) string {
	if v < 0 || v >= len(n.Vars) {
		return "?" + strconv.Itoa(v)
	}
	return n.Vars[v].Name
}

// floatList renders one number as itself and several as [a, b, c].
func floatList(x []float64) string {
	if len(x) == 1 {
		return fmtFloat(x[0])
	}
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = fmtFloat(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// NetDOT writes n in Graphviz DOT like DOT: variables are circles
// labelled with their name and family (p : beta, A[1] : dirichlet(3),
// z[4] : discrete(2)), factors filled boxes labelled with their kind and,
// for likelihoods, what they observe; one edge per (factor, variable)
// incidence, a selector's edge dashed.
func NetDOT(w io.Writer, n *Net) error {
	bw := bufio.NewWriter(w)
	nodes, edges := len(n.Vars)+len(n.Factors), 0
	for fi := range n.Factors {
		for _, e := range n.Factors[fi].Edges {
			edges += len(e.VarsOf())
		}
	}
	layout := "dot"
	switch {
	case nodes > largeGraph, edges > denseGraph:
		layout = "sfdp"
	case nodes > smallTree:
		layout = "neato"
	}
	fmt.Fprintf(bw, "graph fg {\n  graph [layout=%s", layout)
	if layout != "dot" {
		bw.WriteString(", overlap=false, sep=\"+6\"")
	}
	bw.WriteString(", size=\"24,24\"];\n  node [fontsize=10, margin=\"0.03,0.02\"];\n")
	for i, v := range n.Vars {
		fam := v.Family.String()
		if v.Dim > 1 {
			fam += "(" + strconv.Itoa(v.Dim) + ")"
		}
		fmt.Fprintf(bw, "  v%d [shape=circle, label=%s];\n", i, strconv.Quote(v.Name+" : "+fam))
	}
	for i := range n.Factors {
		f := &n.Factors[i]
		text := f.Kind.Name()
		if f.Observed {
			text = f.Label
		}
		fmt.Fprintf(bw, "  f%d [shape=box, style=filled, fillcolor=gray85, height=0.25, width=0.25, label=%s, tooltip=%s];\n",
			i, strconv.Quote(text), strconv.Quote(f.Label))
	}
	for i := range n.Factors {
		seen := map[int]bool{}
		for _, e := range n.Factors[i].Edges {
			for _, v := range e.VarsOf() {
				if seen[v] {
					continue
				}
				seen[v] = true
				style := ""
				if e.Selected && v == e.Sel {
					style = " [style=dashed]"
				}
				fmt.Fprintf(bw, "  f%d -- v%d%s;\n", i, v, style)
			}
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
