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
		files := &sources{get: src}
		for _, e := range list {
			renderOne(w, e, files)
		}
	case errors.As(err, &one):
		renderOne(w, one, &sources{get: src})
	default:
		fmt.Fprintf(w, "error: %s\n", err.Error())
	}
}

// sources reads each file once per Render and indexes its lines (the
// line table of an ast.SourceFile), so that rendering many errors costs no
// more than reading the file.
type sources struct {
	get   func(string) ([]byte, bool)
	text  map[string][]byte
	lines map[string]*ast.SourceFile
}

// line returns line n (1-based) of a file without its newline (nor, on
// line 1, a UTF-8 byte order mark: columns count after it).
func (s *sources) line(name string, n int) ([]byte, bool) {
	if s.get == nil {
		return nil, false
	}
	if s.text == nil {
		s.text, s.lines = map[string][]byte{}, map[string]*ast.SourceFile{}
	}
	text, ok := s.text[name]
	if !ok {
		if text, ok = s.get(name); !ok {
			return nil, false
		}
		s.text[name], s.lines[name] = text, ast.NewFileSet().AddFile(name, text)
	}
	start, ok := s.lines[name].LineStart(n)
	if !ok {
		return nil, false
	}
	end := len(text)
	if next, ok := s.lines[name].LineStart(n + 1); ok {
		end = next - 1
	}
	return bytes.TrimRight(text[start:end], "\r"), true
}

// RenderWarnings writes every warning of list like Render, with the
// severity "warning".
func RenderWarnings(w io.Writer, list ast.ErrorList, src func(filename string) ([]byte, bool)) {
	files := &sources{get: src}
	for _, e := range list {
		renderAs(w, "warning", e, files)
	}
}

func renderOne(w io.Writer, e *ast.Error, src *sources) {
	renderAs(w, "error", e, src)
}

func renderAs(w io.Writer, severity string, e *ast.Error, src *sources) {
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
	if line, ok := src.line(e.Pos.Filename, e.Pos.Line); ok {
		snippet(w, line, e)
	}
}

// snippet prints the gutter, the line and the caret line. Columns are byte
// columns; the caret line copies tabs from the source so carets line up,
// and counts runes so multi-byte characters take one caret. A line longer
// than maxLine is cut to a window around the error.
func snippet(w io.Writer, line []byte, e *ast.Error) {
	num := strconv.Itoa(e.Pos.Line)
	pad := strings.Repeat(" ", len(num))
	col := min(max(e.Pos.Column-1, 0), len(line))
	line, col, end := window(line, col, spanEnd(line, col, e))
	fmt.Fprintf(w, "  %s | %s\n", num, line)
	var b strings.Builder
	for _, r := range string(line[:col]) {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	fmt.Fprintf(w, "  %s | %s%s\n", pad, b.String(), strings.Repeat("^", max(1, utf8.RuneCount(line[col:end]))))
}

// spanEnd is the byte offset in line where the span from col ends: End on
// this line, or the end of the line.
func spanEnd(line []byte, col int, e *ast.Error) int {
	if e.End.IsValid() && e.End.Line == e.Pos.Line {
		return min(max(e.End.Column-1, col), len(line))
	}
	return len(line)
}

// maxLine is the widest source line a snippet shows whole, in bytes.
const maxLine = 120

// ellipsis marks where window cut a line.
const ellipsis = "…"

// window cuts a line longer than maxLine to about maxLine bytes starting a
// little before col, marking each cut with an ellipsis, and returns the
// shown text with col and end moved into it (end is clipped to the window).
func window(line []byte, col, end int) ([]byte, int, int) {
	if len(line) <= maxLine {
		return line, col, end
	}
	lo := max(0, col-maxLine/4)
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	hi := min(len(line), lo+maxLine)
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi--
	}
	var out []byte
	if lo > 0 {
		out = append(out, ellipsis...)
	}
	shift := len(out) - lo
	out = append(out, line[lo:hi]...)
	if hi < len(line) {
		out = append(out, ellipsis...)
	}
	return out, col + shift, min(end, hi) + shift
}
