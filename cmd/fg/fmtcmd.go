package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
)

const fmtUsage = "fg fmt [-w] [-l] FILE..."

// fmt prints each file in canonical form (ast.Format), or with -w rewrites
// the files that change; -l lists the files whose formatting differs.
// A file that does not parse is reported and left alone.
func (e *env) fmt(args []string) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	write := fs.Bool("w", false, "rewrite files in place")
	list := fs.Bool("l", false, "list files whose formatting differs")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(fmtUsage, "%v", err)
	}
	if len(files) == 0 {
		return e.usageError(fmtUsage, "fmt needs at least one model file")
	}
	code := exitOK
	for _, path := range files {
		if !e.fmtFile(path, *write, *list) {
			code = exitError
		}
	}
	return code
}

func (e *env) fmtFile(path string, write, list bool) bool {
	src, err := safefile.ReadFile(nil, path, safefile.MaxSource)
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %s: cannot read: %s\n", path, notExistMsg(err))
		return false
	}
	if compile.IsLibDAI(src) {
		fmt.Fprintf(e.stderr, "fg: %s: a libDAI factor graph, not an fg model; left as is\n", path)
		return !write
	}
	fset := ast.NewFileSet()
	f, err := parser.ParseFile(fset, path, src)
	if err != nil {
		e.printErrors(err)
		return false
	}
	out := ast.Format(fset, f)
	changed := !bytes.Equal(out, src)
	switch {
	case list:
		if changed {
			fmt.Fprintln(e.stdout, path)
		}
	case write:
		if changed {
			return e.rewrite(path, out)
		}
	default:
		e.stdout.Write(out)
	}
	return true
}

// rewrite replaces a file's contents, keeping its permissions.
func (e *env) rewrite(path string, data []byte) bool {
	st, err := os.Stat(path)
	if err == nil {
		err = os.WriteFile(path, data, st.Mode().Perm())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %s: %v\n", path, err)
		return false
	}
	return true
}
