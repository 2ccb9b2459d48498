package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fg-infer/fg/cmd/fg/internal/present"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib"
)

// replCommands are the colon commands, for :help and completion.
var replCommands = []string{":load", ":run", ":show", ":set", ":graph", ":methods", ":rules", ":source", ":help", ":quit"}

// command runs one colon command; it returns false on :quit.
func (s *replSession) command(line string) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ":quit", ":q", ":exit":
		return false
	case ":help", ":h":
		fmt.Fprint(s.e.stdout, replHelp)
	case ":load":
		if arg == "" {
			fmt.Fprintln(s.e.stderr, "usage: :load FILE")
			break
		}
		s.load(arg)
	case ":run":
		s.runModel(strings.Fields(arg))
	case ":show":
		s.show(arg)
	case ":set":
		s.setParam(arg)
	case ":graph":
		s.graph()
	case ":methods":
		s.methods()
	case ":rules":
		fmt.Fprint(s.e.stdout, factor.Text()+"\n"+factor.NetText())
	case ":source":
		s.e.stdout.Write(s.src)
	default:
		fmt.Fprintf(s.e.stderr, "unknown command %s (commands: %s)\n", name, strings.Join(replCommands, " "))
	}
	return true
}

func (s *replSession) setParam(arg string) {
	k, v, ok := strings.Cut(arg, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" {
		fmt.Fprintln(s.e.stderr, "usage: :set NAME=VALUE")
		return
	}
	if s.model == nil {
		fmt.Fprintln(s.e.stderr, "fg: no model yet")
		return
	}
	if err := s.model.Set(k, v); err != nil {
		s.e.printErrors(err)
		return
	}
	s.set[k] = v
	fmt.Fprintf(s.e.stdout, "%s = %s\n", k, v)
}

// show prints a variable's or prediction's marginals from the last run
// (every element), or the value of a param or data item.
func (s *replSession) show(name string) {
	if name == "" {
		fmt.Fprintln(s.e.stderr, "usage: :show NAME")
		return
	}
	if s.results != nil && s.showResult(name) {
		return
	}
	if s.model != nil {
		cm := s.model.Compiled()
		if v, ok := cm.Params[name]; ok {
			fmt.Fprintf(s.e.stdout, "param %s = %s\n", name, valueString(v.Shape, v.Num, v.Str))
			return
		}
		if v, ok := cm.Data[name]; ok {
			fmt.Fprintf(s.e.stdout, "data %s = %s\n", name, valueString(v.Shape, v.Num, v.Str))
			return
		}
	}
	msg := "no variable, prediction, param or data called " + name
	if s.results == nil {
		msg += " (latents have values after :run)"
	}
	fmt.Fprintln(s.e.stderr, msg)
}

// showResult prints one variable or prediction of every result.
func (s *replSession) showResult(name string) bool {
	var rs []*infer.Result
	found := false
	for _, r := range s.results.List {
		c := &infer.Result{Label: r.Label, Method: r.Method}
		for i := range r.Variables.Len() {
			if r.Variables.Name(i) == name {
				c.Variables.Append(r.Variables.At(i))
				found = true
			}
		}
		for _, p := range r.Predictions {
			if p.Name == name {
				c.Predictions, found = append(c.Predictions, p), true
			}
		}
		rs = append(rs, c)
	}
	if !found {
		return false
	}
	var b strings.Builder
	present.WriteTable(&b, "", rs, present.TableOptions{All: true})
	// Drop the summary block: keep from the first blank line on.
	out := b.String()
	if i := strings.Index(out, "\n\n"); i >= 0 {
		out = out[i+2:]
	}
	fmt.Fprint(s.e.stdout, out)
	return true
}

// valueString renders a param/data value, abbreviated past 20 numbers.
func valueString(shape []int, xs []float64, str string) string {
	if str != "" && xs == nil {
		return fmt.Sprintf("%q", str)
	}
	if len(shape) == 0 && len(xs) == 1 {
		return fmt.Sprint(xs[0])
	}
	parts := make([]string, 0, 20)
	for i, x := range xs {
		if i == 20 {
			parts = append(parts, fmt.Sprintf("… (%d values)", len(xs)))
			break
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return fmt.Sprintf("%v [%s]", shape, strings.Join(parts, ", "))
}

func (s *replSession) graph() {
	if s.model == nil {
		fmt.Fprintln(s.e.stderr, "fg: no model yet")
		return
	}
	if net := s.model.Compiled().Net; net != nil { // a typed factor graph: variables with their families
		graph.DumpNet(s.e.stdout, net)
		return
	}
	m := s.model.Compiled()
	graph.DumpFactors(s.e.stdout, m.Graph, m.Factors())
	for _, p := range libsvmPlates(m) { // streamed sites: no graph factors
		fmt.Fprintf(s.e.stdout, "libsvm plate on %s: %s\n", m.Graph.Latents[p.latent].Name, p.label)
	}
}

// methods lists the session's infer lines and the methods fg knows.
func (s *replSession) methods() {
	if s.model != nil {
		for _, sp := range s.model.Infers() {
			fmt.Fprintf(s.e.stdout, "%-20s %s%s\n", sp.Label, sp.Method, optionString(sp.Options))
		}
	}
	var ms []string
	for _, b := range stdlib.All() {
		if b.Kind == stdlib.Method {
			ms = append(ms, b.Name+" — "+b.Doc)
		}
	}
	fmt.Fprintf(s.e.stdout, "methods:\n  %s\n", strings.Join(ms, "\n  "))
}

func optionString(opts map[string]string) string {
	if len(opts) == 0 {
		return ""
	}
	var kv []string
	for k, v := range opts {
		kv = append(kv, k+" = "+v)
	}
	sort.Strings(kv)
	return " { " + strings.Join(kv, ", ") + " }"
}
