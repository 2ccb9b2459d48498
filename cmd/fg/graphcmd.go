package main

import (
	"bytes"
	"flag"
	"fmt"
	"os/exec"
	"strconv"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/session"
)

const graphUsage = "fg graph FILE [--set NAME=VALUE]... [--data NAME=PATH]... [--png OUT.png]"

// graph prints the model's factor graph in DOT, or renders it to PNG with
// graphviz's dot when --png is given; the model is compiled with the
// overrides fg run takes (--set, --data).
func (e *env) graph(args []string) int {
	var set, data multi
	fs := flag.NewFlagSet("graph", flag.ContinueOnError)
	fs.Var(&set, "set", "set param `NAME=VALUE`, VALUE an fg expression such as 0.1 or [1, 2] (repeatable)")
	fs.Var(&data, "data", "read data `NAME=PATH`: its csv(...) from PATH instead of the file it names (repeatable)")
	png := fs.String("png", "", "render the graph to the PNG file `OUT.png` with graphviz's dot")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(graphUsage, "%v", err)
	}
	if len(pos) != 1 {
		return e.usageError(graphUsage, "graph takes one model file")
	}
	var o session.Overrides
	if o.Set, err = keyValues("set", set); err != nil {
		return e.usageError(graphUsage, "%v", err)
	}
	if o.Data, err = keyValues("data", data); err != nil {
		return e.usageError(graphUsage, "%v", err)
	}
	m, err := session.LoadWith(pos[0], o)
	if err != nil {
		e.printErrors(err)
		return exitError
	}
	// Without --png the DOT goes straight to stdout; dot reads it from
	// a buffer.
	var dot bytes.Buffer
	out := e.stdout
	if *png != "" {
		out = &dot
	}
	cm := m.Compiled()
	draw := func() error { return graph.DOTFactors(out, cm.Graph, cm.Factors(), streamedDOT(cm)) }
	if cm.Net != nil {
		draw = func() error { return graph.NetDOT(out, cm.Net) }
	}
	if err := draw(); err != nil {
		fmt.Fprintf(e.stderr, "fg: %v\n", err)
		return exitError
	}
	if *png == "" {
		return exitOK
	}
	return e.renderPNG(dot.Bytes(), *png)
}

func (e *env) renderPNG(dot []byte, out string) int {
	bin, err := exec.LookPath("dot")
	if err != nil {
		fmt.Fprintln(e.stderr, "fg: graphviz's dot is not installed; install graphviz: apt-get install graphviz")
		fmt.Fprintln(e.stderr, "(fg graph FILE without --png prints DOT you can render elsewhere)")
		return exitError
	}
	cmd := exec.Command(bin, "-Tpng", "-o", out)
	cmd.Stdin = bytes.NewReader(dot)
	cmd.Stderr = e.stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(e.stderr, "fg: dot: %v\n", err)
		return exitError
	}
	return exitOK
}

// libsvmPlate is a libsvm plate of a model: its sites are streamed from
// disk and are never graph factors, so graph.DOT and graph.Dump do not
// show it.
type libsvmPlate struct {
	latent int    // the weights' index in Graph.Latents
	label  string // e.g. "probit(y[i]) over 300 examples of train.svm"
}

// libsvmPlates lists m's libsvm plates in block order.
func libsvmPlates(m *compile.Model) []libsvmPlate {
	var out []libsvmPlate
	for _, b := range m.Blocks() {
		if b.Latent < 0 || b.Latent >= len(m.Graph.Latents) {
			continue
		}
		for _, st := range b.Streams {
			out = append(out, libsvmPlate{b.Latent, st.Label})
		}
	}
	return out
}

// streamedDOT is the DOT of m's libsvm plates, which graph.DOTFactors
// adds to its drawing of m's graph: each plate is one box labelled with
// the plate (its likelihood and examples) and joined to the elements of
// its weights; weights too many to be graph variables (a compact latent)
// are one node, `w: real[67108864]`.
func streamedDOT(m *compile.Model) []byte {
	var extra bytes.Buffer
	drawn := map[int]bool{}
	for k, p := range libsvmPlates(m) {
		l := &m.Graph.Latents[p.latent]
		if l.Compact && !drawn[p.latent] {
			drawn[p.latent] = true
			fmt.Fprintf(&extra, "  c%d [shape=circle, label=%s];\n", p.latent, strconv.Quote(fmt.Sprintf("%s: real[%d]", l.Name, l.Size())))
		}
		fmt.Fprintf(&extra, "  s%d [shape=box, style=filled, fillcolor=gray85, height=0.25, width=0.25, label=%s, tooltip=%s];\n",
			k, strconv.Quote(p.label), strconv.Quote(p.label))
		if l.Compact {
			fmt.Fprintf(&extra, "  s%d -- c%d;\n", k, p.latent)
			continue
		}
		for e := range l.Size() {
			fmt.Fprintf(&extra, "  s%d -- v%d;\n", k, l.First+e)
		}
	}
	return extra.Bytes()
}
