package main

import (
	"errors"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/diag"
)

// printErrors renders an error on stderr with lang/diag: every ast.Error of
// a list with its source line and carets; other errors as one line.
func (e *env) printErrors(err error) {
	diag.Render(e.stderr, err, e.source)
}

// printWarnings renders a compiled model's warnings on stderr.
func (e *env) printWarnings(list ast.ErrorList) {
	diag.RenderWarnings(e.stderr, list, e.source)
}

// source returns a file's contents for diagnostics: sources registered by
// the REPL first, then the file system.
func (e *env) source(name string) ([]byte, bool) {
	if src, ok := e.sources[name]; ok {
		return src, true
	}
	src, err := safefile.ReadFile(nil, name, safefile.MaxSource)
	return src, err == nil
}

// diagnosticCount returns how many errors err holds.
func diagnosticCount(err error) int {
	var list ast.ErrorList
	if errors.As(err, &list) {
		return len(list)
	}
	return 1
}
