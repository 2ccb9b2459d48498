package parser

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/fg-infer/fg/lang/ast"
)

// The token filter sits between the lexer and the grammar. It implements the
// newline rules of docs/language-decisions.md — a newline ends a statement
// except inside () and [], after a binary operator or comma, right after `{`
// or right before `}` — collapses runs of terminators, and checks bracket
// balance so that an unclosed or stray bracket is reported precisely
// ("expected `)` to close `(` opened at 3:9") instead of as a confusing
// grammar error far away.

// continues lists the tokens after which a newline continues the statement.
// These are exactly the binary (and prefix) operators, the comma and the
// opening brackets; in particular `=` and `~` are not: `param a =` followed
// by a newline is an error at the end of that line, not a continuation.
var continues = map[string]bool{
	"or": true, "and": true, "not": true, "==": true, "!=": true, "<": true,
	"<=": true, ">": true, ">=": true, "+": true, "-": true, "*": true,
	"/": true, "@": true, "^": true, ",": true, "(": true, "[": true, "{": true,
}

// stmtKeywords start statements; one at the start of a line inside an open
// ( or [ means the bracket was never closed.
var stmtKeywords = map[string]bool{
	"model": true, "import": true, "data": true, "param": true, "latent": true,
	"factor": true, "for": true, "infer": true, "predict": true,
	"expect": true, "learn": true,
}

var closerOf = map[string]string{"(": ")", "[": "]", "{": "}"}

// maxNesting bounds how deep brackets ( [ { may nest. The grammar, the
// lowering and the compiler recurse once per level; the bound turns a
// pathological input (10⁵ `(`) into an error instead of a Go stack
// overflow, far above what any model needs.
const maxNesting = 256

type open struct {
	tok  lexer.Token
	what string      // for `{`: "for block", "option block of infer" ...
	stmt lexer.Token // for `{`: the first token of its statement
}

type filter struct {
	in    []lexer.Token
	out   []lexer.Token
	stack []open
	start lexer.Token // first token of the current statement
	errs  ast.ErrorList
	bad   []int // byte offsets of reported errors
	sig   int   // index of the next non-EOL token (see nextSignificant)
	deep  bool  // maxNesting was exceeded (reported once per statement)
}

// filterTokens applies the newline and bracket rules to scanned tokens
// (which end with EOF). The output also ends with EOF.
func filterTokens(in []lexer.Token) *filter {
	f := &filter{in: in, out: make([]lexer.Token, 0, len(in))}
	for i, t := range in {
		switch {
		case t.EOF():
			f.eof(t)
		case t.Type == tEOL:
			f.eol(i, t)
		case is(t, "(") || is(t, "[") || is(t, "{"):
			f.opener(t)
		case is(t, ")") || is(t, "]"):
			f.closer(t)
		case is(t, "}"):
			f.closeBrace(t)
		default:
			f.emit(t)
		}
	}
	return f
}

func (f *filter) errorf(at lexer.Token, width int, format string, args ...any) {
	p := position(at.Pos)
	f.errs.Add(p, advance(p, width), format, args...)
	f.bad = append(f.bad, at.Pos.Offset)
}

// emit appends t, remembering where statements start.
func (f *filter) emit(t lexer.Token) {
	if n := len(f.out); n == 0 || f.out[n-1].Type == tEOL || is(f.out[n-1], "{") {
		f.start = t
	}
	f.out = append(f.out, t)
}

func (f *filter) top() (open, bool) {
	if len(f.stack) == 0 {
		return open{}, false
	}
	return f.stack[len(f.stack)-1], true
}

func (f *filter) inBrackets() bool {
	o, ok := f.top()
	return ok && !is(o.tok, "{")
}

func (f *filter) opener(t lexer.Token) {
	what := ""
	if is(t, "{") {
		what = blockName(f.start)
	}
	if len(f.stack) >= maxNesting && !f.deep {
		f.errorf(t, 1, "brackets nested more than %d deep", maxNesting)
		f.deep = true
	}
	f.emit(t)
	f.stack = append(f.stack, open{tok: t, what: what, stmt: f.start})
	if is(t, "{") {
		f.start = lexer.Token{}
	}
}

// blockName describes the block a `{` opens, from its statement's keyword.
func blockName(start lexer.Token) string {
	switch start.Value {
	case "for":
		return "for block"
	case "infer", "learn":
		return "option block of " + start.Value
	}
	return "block"
}

// closer handles `)` and `]`.
func (f *filter) closer(t lexer.Token) {
	o, ok := f.top()
	switch {
	case ok && closerOf[o.tok.Value] == t.Value:
		f.stack = f.stack[:len(f.stack)-1]
		f.emit(t)
	case !ok || is(o.tok, "{"):
		f.errorf(t, 1, "unexpected `%s`", t.Value)
	default:
		f.errorf(t, 1, "expected `%s` to close `%s` opened at %s, found `%s`",
			closerOf[o.tok.Value], o.tok.Value, lineCol(o.tok), t.Value)
		f.stack = f.stack[:len(f.stack)-1]
		if o2, ok := f.top(); ok && closerOf[o2.tok.Value] == t.Value {
			f.stack = f.stack[:len(f.stack)-1]
			f.emit(t)
		}
	}
}

// closeBrace handles `}`, closing any ( or [ left open inside the block.
func (f *filter) closeBrace(t lexer.Token) {
	if !f.hasBrace() {
		f.errorf(t, 1, "unexpected `}`")
		return
	}
	f.closeBrackets(t)
	f.stack = f.stack[:len(f.stack)-1]
	if n := len(f.out); n > 0 && f.out[n-1].Type == tEOL {
		f.out = f.out[:n-1] // a newline right before `}` is not a separator
	}
	f.emit(t)
}

func (f *filter) hasBrace() bool {
	for _, o := range f.stack {
		if is(o.tok, "{") {
			return true
		}
	}
	return false
}

// closeBrackets reports and pops every ( or [ above the innermost `{`,
// placing the error at token at.
func (f *filter) closeBrackets(at lexer.Token) {
	for f.inBrackets() {
		o, _ := f.top()
		f.errorf(at, 1, "expected `%s` to close `%s` opened at %s",
			closerOf[o.tok.Value], o.tok.Value, lineCol(o.tok))
		f.stack = f.stack[:len(f.stack)-1]
	}
}

// eol decides whether the newline or `;` at in[i] terminates a statement.
func (f *filter) eol(i int, t lexer.Token) {
	next := f.nextSignificant(i)
	if f.inBrackets() {
		if !(next.EOF() || is(next, "}") || startsLine(next)) {
			return
		}
		f.closeBrackets(f.afterLast(t))
	}
	if len(f.stack) == 0 {
		f.deep = false
	}
	n := len(f.out)
	if n == 0 || f.out[n-1].Type == tEOL || is(f.out[n-1], "{") || is(next, "}") || next.EOF() {
		return
	}
	startsStmt := startsLine(next)
	if last := f.out[n-1]; !startsStmt && (last.Type == tPunct || last.Type == tKeyword) && continues[last.Value] {
		return
	}
	f.out = append(f.out, t)
}

// nextSignificant returns the first token after in[i] that is not an EOL.
// Calls come with increasing i, so the scan resumes where the last one
// stopped: a run of n newlines costs O(n), not O(n²).
func (f *filter) nextSignificant(i int) lexer.Token {
	if f.sig <= i {
		f.sig = i + 1
	}
	for f.sig < len(f.in)-1 && f.in[f.sig].Type == tEOL {
		f.sig++
	}
	return f.in[min(f.sig, len(f.in)-1)]
}

// eof reports every bracket still open, at the end of the last token.
func (f *filter) eof(t lexer.Token) {
	at := f.afterLast(t)
	for len(f.stack) > 0 {
		o, _ := f.top()
		if is(o.tok, "{") {
			f.errorf(at, 1, "expected `}` to close the %s opened at %s", o.what, lineCol(o.stmt))
		} else {
			f.errorf(at, 1, "expected `%s` to close `%s` opened at %s",
				closerOf[o.tok.Value], o.tok.Value, lineCol(o.tok))
		}
		f.stack = f.stack[:len(f.stack)-1]
	}
	if n := len(f.out); n > 0 && f.out[n-1].Type == tEOL {
		f.out = f.out[:n-1]
	}
	f.out = append(f.out, t)
}

func lineCol(t lexer.Token) string { return fmt.Sprintf("%d:%d", t.Pos.Line, t.Pos.Column) }

// startsLine reports whether t can only begin a statement: a newline before
// it always ends the previous statement.
func startsLine(t lexer.Token) bool { return t.Type == tKeyword && stmtKeywords[t.Value] }

// afterLast is a position token just after the last emitted token (where a
// missing closer belongs), or t when nothing was emitted.
func (f *filter) afterLast(t lexer.Token) lexer.Token {
	n := len(f.out)
	if n == 0 {
		return t
	}
	last := f.out[n-1]
	at := lexer.Token{Type: tEOL, Pos: last.Pos}
	at.Pos.Offset += len(last.Value)
	at.Pos.Column += len(last.Value)
	return at
}
