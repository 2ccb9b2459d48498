package ast

import (
	"bytes"
	"strings"
)

// Format prints a file in canonical fg syntax (the output of `fg fmt`):
// one statement per line, blocks indented by two spaces, single spaces
// around binary operators except none around `^` and `..`, infer/learn
// options one per line inside braces, at most one blank line kept where the
// source had any, a final newline.
//
// Comments are re-attached by position: a comment on the line where a
// statement (option, brace) ends is printed after it on that line; every
// other comment is printed on its own line before the next statement,
// option or closing brace. A comment inside a statement's expression moves
// in front of the statement. Format is idempotent.
func Format(f *File) []byte {
	p := &printer{comments: f.Comments}
	p.stmts(f.Stmts)
	p.leading(maxOffset)
	out := alignComments(p.buf.Bytes(), p.marks)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

const maxOffset = int(^uint(0) >> 1)

type printer struct {
	buf      bytes.Buffer
	indent   int
	flat     bool // ExprString: no multi-line lists
	comments []*Comment
	ci       int   // next comment to print
	lastLine int   // source line of the last printed item; 0 at block start
	marks    []int // buffer offsets where trailing comments start
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

// leading prints, each on its own line, the comments before offset.
func (p *printer) leading(offset int) {
	for p.ci < len(p.comments) && p.comments[p.ci].Slash.Offset < offset {
		c := p.comments[p.ci]
		p.blank(c.Slash.Line)
		p.writeIndent()
		p.write(c.Text + "\n")
		p.lastLine = c.Slash.Line
		p.ci++
	}
}

// trailing prints a comment that starts on line `line` after the item, on
// the current output line, then ends the line.
func (p *printer) trailing(end Pos) {
	if p.ci < len(p.comments) {
		c := p.comments[p.ci]
		if end.IsValid() && c.Slash.Line == end.Line && c.Slash.Offset >= end.Offset {
			p.marks = append(p.marks, p.buf.Len())
			p.write(" " + c.Text)
			p.ci++
		}
	}
	p.write("\n")
}

// item prints one statement or option with its comments.
func (p *printer) item(n Node, headerEnd Pos, print func()) {
	p.leading(offsetOf(headerEnd))
	p.blank(n.Pos().Line)
	p.writeIndent()
	print()
	p.trailing(n.End())
	p.lastLine = n.End().Line
}

func offsetOf(pos Pos) int {
	if !pos.IsValid() {
		return -1
	}
	return pos.Offset
}

func (p *printer) stmts(list []Stmt) {
	for _, s := range list {
		s := s
		p.item(s, headerEnd(s), func() { p.stmt(s) })
	}
}

// headerEnd is where a statement's own text ends: its opening brace for
// block statements, its end otherwise. Comments before it lead the
// statement.
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

// block prints `{`, the body, and `}` (without the final newline).
func (p *printer) block(lbrace, rbrace Pos, body func()) {
	p.write("{")
	if !p.hasCommentBefore(rbrace) && body == nil {
		p.write("}")
		return
	}
	p.trailing(lbrace.Advance(1))
	p.indent++
	p.lastLine = 0
	if body != nil {
		body()
	}
	p.leading(offsetOf(rbrace))
	p.indent--
	p.writeIndent()
	p.write("}")
}

func (p *printer) hasCommentBefore(pos Pos) bool {
	return pos.IsValid() && p.ci < len(p.comments) && p.comments[p.ci].Slash.Offset < pos.Offset
}
