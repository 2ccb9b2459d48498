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
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case is(t, "{"):
			depth++
		case is(t, "}"):
			depth--
		case t.Type == tEOL && depth <= 0:
			out = append(out, p.stmt(toks[start:i], lo, t)...)
			lo, start = t.Pos.Offset, i+1
		}
	}
	return append(out, p.stmt(toks[start:], lo, end)...)
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

// parseStmt parses one statement, trying recovery inside a failed for
// plate when recover is set.
func (p *fileParse) parseStmt(toks []lexer.Token, lo int, term lexer.Token, recover bool) []ast.Stmt {
	if len(toks) == 0 {
		return nil
	}
	bad := p.hasBad(lo, term.Pos.Offset)
	if !bad {
		g, err := fileParser.ParseFromLexer(peeking(withEOF(toks, term)))
		if err == nil {
			return p.low.stmts(g.Stmts)
		}
		if !recover || !is(toks[0], "for") {
			p.errs = append(p.errs, convertError(err, term, toks))
			return nil
		}
		if p.recoverFor(toks, lo, term) {
			return nil
		}
		p.errs = append(p.errs, convertError(err, term, toks))
		return nil
	}
	if recover && is(toks[0], "for") {
		p.recoverFor(toks, lo, term)
	}
	return nil
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

// recoverFor re-parses a failed for plate as its header with an empty body
// plus each body statement, reporting errors in each part. It returns false
// when it found nothing to report, so the caller reports the original error.
func (p *fileParse) recoverFor(toks []lexer.Token, lo int, term lexer.Token) bool {
	n := len(p.errs)
	open := indexOf(toks, "{")
	if open < 0 {
		return false
	}
	header := append(append([]lexer.Token{}, toks[:open+1]...), closeAfter(toks[open]))
	p.parseStmt(header, lo, toks[open], false)
	closeAt := matchBrace(toks, open)
	body := toks[open+1 : closeAt]
	bodyEnd := term
	if closeAt < len(toks) {
		bodyEnd = toks[closeAt]
	}
	p.block(body, toks[open].Pos.Offset, bodyEnd)
	if closeAt+1 < len(toks) && !p.hasBad(toks[closeAt].Pos.Offset, term.Pos.Offset) {
		t := toks[closeAt+1]
		p.errs.Add(astPos(t.Pos), tokEnd(t), "unexpected `%s` after the for block", t.Value)
	}
	return len(p.errs) > n
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
