// Package diag renders diagnostics for people: each ast.Error as
//
//	file:line:col: error: message
//	  12 | the source line
//	     |     ^^^^
//
// with carets under the span [Pos, End), and offers "did you mean"
// suggestions by edit distance. Error values themselves stay one-line
// (ast.Error.Error); snippets are a presentation concern of the CLI/REPL.
package diag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fg-infer/fg/lang/ast"
)

// Render writes every error in err. An ast.ErrorList (or a wrapped one)
// yields one diagnostic per element; an *ast.Error one; any other error is
// printed as `error: msg`. src returns a file's contents for snippets; when
// it reports false (or the position is invalid or out of range) the snippet
// is omitted.
func Render(w io.Writer, err error, src func(filename string) ([]byte, bool)) {
	if err == nil {
		return
	}
	var list ast.ErrorList
	var one *ast.Error
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			renderOne(w, e, src)
		}
	case errors.As(err, &one):
		renderOne(w, one, src)
	default:
		fmt.Fprintf(w, "error: %s\n", err.Error())
	}
}

// RenderWarnings writes every warning of list like Render, with the
// severity "warning".
func RenderWarnings(w io.Writer, list ast.ErrorList, src func(filename string) ([]byte, bool)) {
	for _, e := range list {
		renderAs(w, "warning", e, src)
	}
}

func renderOne(w io.Writer, e *ast.Error, src func(string) ([]byte, bool)) {
	renderAs(w, "error", e, src)
}

func renderAs(w io.Writer, severity string, e *ast.Error, src func(string) ([]byte, bool)) {
	switch {
	case e.Pos.IsValid():
		fmt.Fprintf(w, "%s: %s: %s\n", e.Pos, severity, e.Msg)
	case e.Pos.Filename != "":
		fmt.Fprintf(w, "%s: %s: %s\n", e.Pos.Filename, severity, e.Msg)
		return
	default:
		fmt.Fprintf(w, "%s: %s\n", severity, e.Msg)
		return
	}
	if src == nil {
		return
	}
	text, ok := src(e.Pos.Filename)
	if !ok {
		return
	}
	if line, ok := sourceLine(text, e.Pos.Line); ok {
		snippet(w, line, e)
	}
}

// sourceLine returns line n (1-based) of text without its newline.
func sourceLine(text []byte, n int) ([]byte, bool) {
	for i := 1; i < n; i++ {
		k := bytes.IndexByte(text, '\n')
		if k < 0 {
			return nil, false
		}
		text = text[k+1:]
	}
	if k := bytes.IndexByte(text, '\n'); k >= 0 {
		text = text[:k]
	}
	return bytes.TrimRight(text, "\r"), true
}

// snippet prints the gutter, the line and the caret line. Columns are byte
// columns; the caret line copies tabs from the source so carets line up,
// and counts runes so multi-byte characters take one caret.
func snippet(w io.Writer, line []byte, e *ast.Error) {
	num := strconv.Itoa(e.Pos.Line)
	pad := strings.Repeat(" ", len(num))
	fmt.Fprintf(w, "  %s | %s\n", num, line)
	col := min(max(e.Pos.Column-1, 0), len(line))
	var b strings.Builder
	for _, r := range string(line[:col]) {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	fmt.Fprintf(w, "  %s | %s%s\n", pad, b.String(), strings.Repeat("^", caretWidth(line, col, e)))
}

// caretWidth is the number of runes in the span on this line, at least 1.
func caretWidth(line []byte, col int, e *ast.Error) int {
	end := len(line)
	if e.End.IsValid() && e.End.Line == e.Pos.Line {
		end = min(max(e.End.Column-1, col), len(line))
	}
	return max(1, utf8.RuneCount(line[col:end]))
}
