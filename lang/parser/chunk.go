package parser

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/fg-infer/fg/lang/ast"
)

// fileParse parses a filtered token stream statement by statement.
type fileParse struct {
	errs ast.ErrorList
	bad  []int // offsets where the lexer or filter already reported errors
	low  lowerer
}

// block parses toks (no EOF) as a sequence of statements separated by
// top-level EOL tokens. lo is the offset after which this block's errors
// lie; end is the token following the block.
func (p *fileParse) block(toks []lexer.Token, lo int, end lexer.Token) []ast.Stmt {
	var out []ast.Stmt
	topLevel(toks, end, func(stmt []lexer.Token, term lexer.Token) bool {
		if len(p.errs)+len(p.low.errs) > ast.MaxErrors {
			return false // ParseFile says that errors were left out
		}
		out = append(out, p.stmt(stmt, lo, term)...)
		lo = term.Pos.Offset
		return true
	})
	return out
}

// topLevel calls f with each statement of toks — the tokens between EOLs
// outside braces — and the EOL (or end) that follows it, until f returns
// false.
func topLevel(toks []lexer.Token, end lexer.Token, f func(stmt []lexer.Token, term lexer.Token) bool) {
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case is(t, "{"):
			depth++
		case is(t, "}"):
			depth--
		case t.Type == tEOL && depth <= 0:
			if !f(toks[start:i], t) {
				return
			}
			start = i + 1
		}
	}
	f(toks[start:], end)
}

// hasBad reports whether an error was already reported in (lo, hi].
func (p *fileParse) hasBad(lo, hi int) bool {
	for _, b := range p.bad {
		if b > lo && b <= hi {
			return true
		}
	}
	return false
}

// stmt parses one statement's tokens; term is the EOL or EOF after it.
func (p *fileParse) stmt(toks []lexer.Token, lo int, term lexer.Token) []ast.Stmt {
	return p.parseStmt(toks, lo, term, true)
}

// parseStmt parses one statement, trying recovery inside a failed block
// statement (for, infer, learn) when recover is set.
func (p *fileParse) parseStmt(toks []lexer.Token, lo int, term lexer.Token, recover bool) []ast.Stmt {
	if len(toks) == 0 {
		return nil
	}
	bad := p.hasBad(lo, term.Pos.Offset)
	if !bad {
		if g, ok := fastStmt(toks); ok {
			return p.low.stmts([]*gStmt{g})
		}
		g, err := fileParser.ParseFromLexer(peeking(withEOF(toks, term)))
		if err == nil {
			return p.low.stmts(g.Stmts)
		}
		if !recover || !hasBlock(toks) || !p.recoverBlock(toks, lo, term) {
			p.errs = append(p.errs, convertError(err, term, toks))
		}
		return nil
	}
	if recover && hasBlock(toks) {
		p.recoverBlock(toks, lo, term)
	}
	return nil
}

// hasBlock reports whether toks is a statement with a brace block.
func hasBlock(toks []lexer.Token) bool {
	return (is(toks[0], "for") || is(toks[0], "infer") || is(toks[0], "learn")) && indexOf(toks, "{") >= 0
}

// withEOF appends an EOF token placed just after the last token, where an
// "unexpected end of line" belongs.
func withEOF(toks []lexer.Token, term lexer.Token) []lexer.Token {
	out := make([]lexer.Token, len(toks), len(toks)+1)
	copy(out, toks)
	pos := term.Pos
	if n := len(toks); n > 0 {
		pos = toks[n-1].Pos
		pos.Offset += len(toks[n-1].Value)
		pos.Column += len(toks[n-1].Value)
	}
	return append(out, lexer.EOFToken(pos))
}

// recoverBlock re-parses a failed block statement as its header with an
// empty block, plus each body statement (for) or option (infer, learn),
// reporting errors in each part. It returns false when it found nothing to
// report, so the caller reports the original error.
func (p *fileParse) recoverBlock(toks []lexer.Token, lo int, term lexer.Token) bool {
	n := len(p.errs)
	open := indexOf(toks, "{")
	header := append(append([]lexer.Token{}, toks[:open+1]...), closeAfter(toks[open]))
	p.parseStmt(header, lo, toks[open], false)
	closeAt := matchBrace(toks, open)
	body := toks[open+1 : closeAt]
	bodyEnd := term
	if closeAt < len(toks) {
		bodyEnd = toks[closeAt]
	}
	if is(toks[0], "for") {
		p.block(body, toks[open].Pos.Offset, bodyEnd)
	} else {
		p.options(body, toks[open].Pos.Offset, bodyEnd)
	}
	if closeAt+1 < len(toks) && !p.hasBad(toks[closeAt].Pos.Offset, term.Pos.Offset) {
		t := toks[closeAt+1]
		p.errs.Add(position(t.Pos), tokEnd(t), "unexpected `%s` after the block", t.Value)
	}
	return len(p.errs) > n
}

// options parses the body of an option block piece by piece, cut at
// newlines and at commas outside brackets, only to report errors.
func (p *fileParse) options(toks []lexer.Token, lo int, end lexer.Token) {
	depth, start := 0, 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) {
			t := toks[i]
			switch {
			case is(t, "(") || is(t, "["):
				depth++
			case is(t, ")") || is(t, "]"):
				depth--
			}
			if !(t.Type == tEOL || (is(t, ",") && depth == 0)) {
				continue
			}
		}
		term := end
		if i < len(toks) {
			term = toks[i]
		}
		p.option(toks[start:i], lo, term)
		if i < len(toks) {
			lo, start = toks[i].Pos.Offset, i+1
		}
	}
}

func (p *fileParse) option(toks []lexer.Token, lo int, term lexer.Token) {
	if len(toks) == 0 || p.hasBad(lo, term.Pos.Offset) {
		return
	}
	if _, err := optionParser.ParseFromLexer(peeking(withEOF(toks, term))); err != nil {
		p.errs = append(p.errs, convertError(err, term, toks))
	}
}

func indexOf(toks []lexer.Token, v string) int {
	for i, t := range toks {
		if is(t, v) {
			return i
		}
	}
	return -1
}

// matchBrace returns the index of the `}` matching toks[open], or len(toks).
func matchBrace(toks []lexer.Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case is(toks[i], "{"):
			depth++
		case is(toks[i], "}"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// closeAfter makes a synthetic `}` just after t.
func closeAfter(t lexer.Token) lexer.Token {
	c := lexer.Token{Type: tPunct, Value: "}", Pos: t.Pos}
	c.Pos.Offset++
	c.Pos.Column++
	return c
}
