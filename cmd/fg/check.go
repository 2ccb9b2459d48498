package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/safefile"
)

const checkUsage = "fg check [--set NAME=VALUE] [--data NAME=PATH] FILE..."

// check compiles every file in check mode (no Gram matrices) with the
// overrides fg run takes (--set, --data) and prints all diagnostics; exit
// 1 if any file has errors.
func (e *env) check(args []string) int {
	var set, data multi
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.Var(&set, "set", "set param `NAME=VALUE`, VALUE an fg expression such as 0.1 or [1, 2] (repeatable)")
	fs.Var(&data, "data", "read data `NAME=PATH`: its csv(...) from PATH instead of the file it names (repeatable)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(checkUsage, "%v", err)
	}
	if len(files) == 0 {
		return e.usageError(checkUsage, "check needs at least one model file")
	}
	opt := compile.Options{}
	if opt.Set, err = keyValues("set", set); err != nil {
		return e.usageError(checkUsage, "%v", err)
	}
	if opt.Data, err = keyValues("data", data); err != nil {
		return e.usageError(checkUsage, "%v", err)
	}
	code := exitOK
	for _, path := range files {
		if !e.checkFile(path, opt) {
			code = exitError
		}
	}
	return code
}

func (e *env) checkFile(path string, opt compile.Options) bool {
	src, libdai, err := safefile.ReadModelOrLibDAI(nil, path, compile.IsLibDAI)
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %s: cannot read: %v\n", path, notExistMsg(err))
		return false
	}
	var m *compile.Model
	if libdai {
		m, err = compile.CompileLibDAI(path, opt)
	} else {
		m, err = compile.Check(path, src, opt)
	}
	if err != nil {
		e.printErrors(err)
		fmt.Fprintf(e.stderr, "%s: %d error(s)\n", path, diagnosticCount(err))
		return false
	}
	e.printWarnings(m.Warnings)
	vars, factors := len(m.Graph.Vars), m.Factors().NumFactors()
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
