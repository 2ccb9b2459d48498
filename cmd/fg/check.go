package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/safefile"
)

const checkUsage = "fg check FILE..."

// check compiles every file in check mode (no Gram matrices) and prints all
// diagnostics; exit 1 if any file has errors.
func (e *env) check(args []string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(checkUsage, "%v", err)
	}
	if len(files) == 0 {
		return e.usageError(checkUsage, "check needs at least one model file")
	}
	code := exitOK
	for _, path := range files {
		if !e.checkFile(path) {
			code = exitError
		}
	}
	return code
}

func (e *env) checkFile(path string) bool {
	src, libdai, err := safefile.ReadModelOrLibDAI(nil, path, compile.IsLibDAI)
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %s: cannot read: %v\n", path, notExistMsg(err))
		return false
	}
	var m *compile.Model
	if libdai {
		m, err = compile.CompileLibDAI(path, compile.Options{})
	} else {
		m, err = compile.Check(path, src, compile.Options{})
	}
	if err != nil {
		e.printErrors(err)
		fmt.Fprintf(e.stderr, "%s: %d error(s)\n", path, diagnosticCount(err))
		return false
	}
	e.printWarnings(m.Warnings)
	vars, factors := len(m.Graph.Vars), m.Graph.NumFactors()
	for _, l := range m.Graph.Latents {
		if l.Compact { // streamed weights: elements that are not graph variables
			vars += l.Size()
		}
	}
	if m.Net != nil { // a typed factor graph: its variables (a Dirichlet row is one) and factors
		vars, factors = len(m.Net.Vars), len(m.Net.Factors)
	}
	fmt.Fprintf(e.stdout, "%s: ok (%d latent(s), %d variable(s), %d factor(s), %d infer line(s), %d expect(s))\n",
		path, len(m.Graph.Latents), vars, factors, len(m.Infers), len(m.Expects))
	return true
}

// notExistMsg shortens "open x: no such file or directory" to its reason.
func notExistMsg(err error) string {
	if os.IsNotExist(err) {
		return "no such file"
	}
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
