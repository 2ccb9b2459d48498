package parser

import (
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// scanner is a hand-written equivalent of lexDef, the participle lexer
// that defines fg's tokens: it yields the same tokens (type, text, byte
// offset) as lexDef's ordered regular expressions, which
// TestScannerMatchesLexDef checks on the corpus and on random input, at a
// fraction of the cost (participle runs up to ten regular expressions per
// token).
type scanner struct {
	filename string
	src      string
	off      int
}

// Next returns the next raw token (spaces and comments included), then an
// EOF token at the end of the input.
func (s *scanner) Next() lexer.Token {
	if s.off >= len(s.src) {
		return lexer.EOFToken(lexer.Position{Filename: s.filename, Offset: len(s.src)})
	}
	start := s.off
	typ := s.rule()
	return lexer.Token{Type: typ, Value: s.src[start:s.off], Pos: lexer.Position{Filename: s.filename, Offset: start}}
}

// rule consumes one token and returns its type, trying lexDef's rules in
// order.
func (s *scanner) rule() lexer.TokenType {
	rest := s.src[s.off:]
	c := rest[0]
	switch {
	case c == '#' || (c == '/' && len(rest) > 1 && rest[1] == '/'):
		s.skipUntilNewline()
		return tComment
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || hasBOM(rest):
		for s.off < len(s.src) {
			if r := s.src[s.off]; r == ' ' || r == '\t' || r == '\r' || r == '\f' {
				s.off++
			} else if hasBOM(s.src[s.off:]) {
				s.off += len(bom)
			} else {
				break
			}
		}
		return tSpace
	case c == '\n' || c == ';':
		s.off++
		return tEOL
	case c == '"':
		return s.str()
	case isDigit(c) || (c == '.' && len(rest) > 1 && isDigit(rest[1])):
		s.number()
		return tNumber
	case isLetter(c):
		start := s.off
		for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
			s.off++
		}
		if isKeyword[s.src[start:s.off]] {
			return tKeyword
		}
		return tIdent
	}
	if n := punctLen(rest); n > 0 {
		s.off += n
		return tPunct
	}
	_, size := utf8.DecodeRuneInString(rest)
	s.off += size
	return tBad
}

func hasBOM(s string) bool { return len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF }

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

var isKeyword = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range keywords {
		m[k] = true
	}
	return m
}()

func (s *scanner) skipUntilNewline() {
	for s.off < len(s.src) && s.src[s.off] != '\n' {
		s.off++
	}
}

// str is String `"(\\.|[^"\\\n])*"`, or BadString `"[^\n]*` when the
// closing quote is missing.
func (s *scanner) str() lexer.TokenType {
	start := s.off
	i := s.off + 1
	for i < len(s.src) {
		switch s.src[i] {
		case '"':
			s.off = i + 1
			return tString
		case '\n':
			s.off = start
			s.skipUntilNewline()
			return tBadString
		case '\\':
			if i+1 >= len(s.src) || s.src[i+1] == '\n' {
				s.off = start
				s.skipUntilNewline()
				return tBadString
			}
			i += 2
		default:
			i++
		}
	}
	s.off = start
	s.skipUntilNewline()
	return tBadString
}

// number is `(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?`.
func (s *scanner) number() {
	digits := func() {
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.off++
		}
	}
	if s.src[s.off] == '.' {
		s.off++
		digits()
	} else {
		digits()
		if s.off+1 < len(s.src) && s.src[s.off] == '.' && isDigit(s.src[s.off+1]) {
			s.off++
			digits()
		}
	}
	if s.off < len(s.src) && (s.src[s.off] == 'e' || s.src[s.off] == 'E') {
		j := s.off + 1
		if j < len(s.src) && (s.src[j] == '+' || s.src[j] == '-') {
			j++
		}
		if j < len(s.src) && isDigit(s.src[j]) {
			s.off = j
			digits()
		}
	}
}

// punctLen is the length of the Punct token at the start of s, or 0.
func punctLen(s string) int {
	if len(s) >= 2 {
		switch s[:2] {
		case "==", "!=", "<=", ">=", "..":
			return 2
		}
	}
	switch s[0] {
	case '-', '+', '*', '/', '@', '^', '<', '>', '=', '~', ':', ',', '.', '(', ')', '[', ']', '{', '}':
		return 1
	}
	return 0
}
