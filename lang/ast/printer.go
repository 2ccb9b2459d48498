package ast

import (
	"bytes"
	"fmt"
	"strings"
)

// Format prints a file in canonical fg syntax (the output of `fg fmt`):
// one statement per line, blocks indented by two spaces, single spaces
// around binary operators except none around `^` and `..`, infer/learn
// options one per line inside braces, at most one blank line kept where the
// source had any, a final newline. A call whose arguments, or a matrix whose
// rows, the source spread over several lines is printed one argument (row)
// per line with a trailing comma; everything else is printed on one line.
//
// Comments are re-attached by position: a comment on the line where a
// statement, option, brace, argument or row ends is printed after it on
// that line (consecutive such comments aligned); every other comment is
// printed on its own line before the next statement, option, argument, row
// or closing brace. A comment inside a part printed on one line moves in
// front of its statement. Format is idempotent.
//
// fset resolves the tree's positions (their lines); a tree built by hand,
// without positions, prints with none of the source's line breaks.
//
// A malformed tree (a required child left nil) does not panic: the output
// so far is returned followed by a line `<malformed syntax tree: ...>`.
func Format(fset *FileSet, f *File) (out []byte) {
	p := &printer{fset: fset, comments: f.Comments, used: make([]bool, len(f.Comments)), limit: maxOffset}
	defer func() {
		if r := recover(); r != nil {
			out = append(p.buf.Bytes(), fmt.Sprintf("\n<malformed syntax tree: %v>\n", r)...)
		}
	}()
	p.stmts(f.Stmts)
	p.leading(-1, maxOffset)
	out = alignComments(p.buf.Bytes(), p.marks)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

const maxOffset = int(^uint(0) >> 1)

type printer struct {
	buf      bytes.Buffer
	indent   int
	flat     bool // ExprString: everything on one line
	fset     *FileSet
	comments []*Comment
	used     []bool
	lastLine int   // source line of the last printed item; 0 at block start
	marks    []int // buffer offsets where trailing comments start
	limit    int   // offset of the enclosing block's `}`: comments after it are not the items'
}

func (p *printer) write(s string) { p.buf.WriteString(s) }

func (p *printer) writeIndent() { p.write(strings.Repeat("  ", p.indent)) }

// blank writes one empty line when the item at source line `line` was
// separated from the previous item by at least one blank line.
func (p *printer) blank(line int) {
	if p.lastLine > 0 && line > p.lastLine+1 {
		p.write("\n")
	}
}

// leading prints, each on its own line, the unused comments with offsets
// in (lo, hi).
func (p *printer) leading(lo, hi int) {
	for i, c := range p.comments {
		if p.used[i] || int(c.Slash) <= lo || int(c.Slash) >= hi {
			continue
		}
		p.used[i] = true
		p.blank(p.line(c.Slash))
		p.writeIndent()
		p.write(c.Text + "\n")
		p.lastLine = p.line(c.Slash)
	}
}

// trailing prints the first unused comment that starts on end's line at or
// after end and before limit, on the current output line. It reports
// whether it printed one.
func (p *printer) trailing(end Pos, limit int) bool {
	if !end.IsValid() {
		return false
	}
	for i, c := range p.comments {
		if !p.used[i] && p.line(c.Slash) == p.line(end) && c.Slash >= end && int(c.Slash) < limit {
			p.used[i] = true
			p.marks = append(p.marks, p.buf.Len())
			p.write(" " + c.Text)
			return true
		}
	}
	return false
}

// item prints one statement or option with its comments: comments before
// it, then (rendered first, so that comments placed inside it are known)
// comments inside its header that found no place, then the item itself and
// a trailing comment — one on its last line before the next item (next,
// may be nil) and before the enclosing block's `}`.
func (p *printer) item(n Node, headerEnd Pos, next Node, print func()) {
	p.leading(-1, int(n.Pos()))
	p.blank(p.line(n.Pos()))
	text, marks := p.render(print)
	p.lastLine = 0 // no blank lines among comments moved out of the item
	p.leading(-1, offsetOf(headerEnd))
	p.writeIndent()
	base := p.buf.Len()
	p.buf.Write(text)
	for _, m := range marks {
		p.marks = append(p.marks, base+m)
	}
	limit := p.limit
	if next != nil && next.Pos().IsValid() {
		limit = min(limit, int(next.Pos()))
	}
	p.trailing(n.End(), limit)
	p.write("\n")
	p.lastLine = p.line(n.End())
}

// render runs print into a fresh buffer and returns the text and the
// trailing-comment marks relative to it.
func (p *printer) render(print func()) ([]byte, []int) {
	saved, savedMarks := p.buf, p.marks
	p.buf, p.marks = bytes.Buffer{}, nil
	print()
	text, marks := p.buf.Bytes(), p.marks
	p.buf, p.marks = saved, savedMarks
	return text, marks
}

func offsetOf(pos Pos) int {
	if !pos.IsValid() {
		return -1
	}
	return int(pos)
}

// line is the source line of pos; 0 when it is unknown.
func (p *printer) line(pos Pos) int { return p.fset.Position(pos).Line }

func (p *printer) stmts(list []Stmt) {
	for i, s := range list {
		var next Node
		if i+1 < len(list) {
			next = list[i+1]
		}
		p.item(s, headerEnd(s), next, func() { p.stmt(s) })
	}
}

// headerEnd is where a statement's own text ends: its opening brace for
// block statements, its end otherwise.
func headerEnd(s Stmt) Pos {
	switch s := s.(type) {
	case *ForStmt:
		return s.Lbrace
	case *InferStmt:
		if s.Lbrace.IsValid() {
			return s.Lbrace
		}
	case *LearnStmt:
		if s.Lbrace.IsValid() {
			return s.Lbrace
		}
	}
	return s.End()
}

// block prints `{`, the body, and `}` (without the final newline); an empty
// block without comments is `{}`.
func (p *printer) block(lbrace, rbrace Pos, body func()) {
	p.write("{")
	if body == nil && !p.hasComment(offsetOf(lbrace), offsetOf(rbrace)) {
		p.write("}")
		return
	}
	p.trailing(lbrace.Advance(1), offsetOf(rbrace))
	p.write("\n")
	p.indent++
	p.lastLine = 0
	if body != nil {
		saved := p.limit
		p.limit = offsetOf(rbrace)
		if p.limit < 0 {
			p.limit = maxOffset
		}
		body()
		p.limit = saved
	}
	p.leading(offsetOf(lbrace), offsetOf(rbrace))
	p.indent--
	p.writeIndent()
	p.write("}")
}

// hasComment reports whether an unused comment lies in (lo, hi).
func (p *printer) hasComment(lo, hi int) bool {
	for i, c := range p.comments {
		if !p.used[i] && int(c.Slash) > lo && int(c.Slash) < hi {
			return true
		}
	}
	return false
}
