package main

import (
	"bytes"
	"flag"
	"fmt"
	"os/exec"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/session"
)

const graphUsage = "fg graph FILE [--png OUT.png]"

// graph prints the model's factor graph in DOT, or renders it to PNG with
// graphviz's dot when --png is given.
func (e *env) graph(args []string) int {
	fs := flag.NewFlagSet("graph", flag.ContinueOnError)
	png := fs.String("png", "", "render the graph to the PNG file `OUT.png` with graphviz's dot")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(graphUsage, "%v", err)
	}
	if len(pos) != 1 {
		return e.usageError(graphUsage, "graph takes one model file")
	}
	m, err := session.Load(pos[0])
	if err != nil {
		e.printErrors(err)
		return exitError
	}
	var dot bytes.Buffer
	draw := func() error { return graph.DOT(&dot, m.Compiled().Graph) }
	if net := m.Compiled().Net; net != nil {
		draw = func() error { return graph.NetDOT(&dot, net) }
	}
	if err := draw(); err != nil {
		fmt.Fprintf(e.stderr, "fg: %v\n", err)
		return exitError
	}
	if *png == "" {
		e.stdout.Write(dot.Bytes())
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
