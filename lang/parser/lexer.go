package parser

import (
	"bytes"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/fg-infer/fg/lang/ast"
)

// keywords are reserved words; the lexer gives them token type Keyword so
// that `@Ident` never captures one.
var keywords = []string{
	"model", "import", "data", "param", "latent", "factor", "for", "in",
	"infer", "predict", "expect", "learn", "by", "as", "and", "or", "not",
	"true", "false",
}

// lexDef is the token definition. Rules are tried in order; the first match
// wins. EOL covers newlines and `;`, both statement terminators. BadString
// and Bad catch malformed input so that lexing never stops early.
var lexDef = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `(//|#)[^\n]*`},
	{Name: "Whitespace", Pattern: `[ \t\r\f\x{FEFF}]+`},
	{Name: "EOL", Pattern: `\n|;`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "BadString", Pattern: `"[^\n]*`},
	{Name: "Number", Pattern: `(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?`},
	{Name: "Keyword", Pattern: `\b(` + strings.Join(keywords, "|") + `)\b`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Punct", Pattern: `==|!=|<=|>=|\.\.|[-+*/@^<>=~:,.()\[\]{}]`},
	{Name: "Bad", Pattern: `.`},
})

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte("\uFEFF")

var (
	symbols    = lexDef.Symbols()
	tComment   = symbols["Comment"]
	tSpace     = symbols["Whitespace"]
	tEOL       = symbols["EOL"]
	tString    = symbols["String"]
	tBadString = symbols["BadString"]
	tNumber    = symbols["Number"]
	tKeyword   = symbols["Keyword"]
	tIdent     = symbols["Ident"]
	tPunct     = symbols["Punct"]
	tBad       = symbols["Bad"]
)

// scanned is the output of scan: significant tokens (EOL included, spaces
// and comments removed) ending with an EOF token, the comments, and lexical
// errors.
type scanned struct {
	toks     []lexer.Token
	comments []*ast.Comment
	errs     ast.ErrorList
	bad      []int // byte offsets of lexical errors
}

// scan tokenises src with the scanner (lexDef's hand-written
// equivalent). Columns are 1-based byte columns, computed from offsets so
// that they agree with ast.Pos.
func scan(filename string, src []byte) *scanned {
	// At most one token per byte, and rarely fewer than one per two bytes
	// in large (data-laden) files: the estimate spares the repeated growth
	// of a large file's token slice.
	s := &scanned{toks: make([]lexer.Token, 0, len(src)/2+2)}
	sc := &scanner{filename: filename, src: string(src)}
	lines := lineStarts(src)
	for {
		t := sc.Next()
		t.Pos = fixPos(t.Pos, lines)
		if t.EOF() {
			s.toks = append(s.toks, t)
			return s
		}
		s.add(t)
	}
}

// add files one raw token.
func (s *scanned) add(t lexer.Token) {
	p := astPos(t.Pos)
	switch t.Type {
	case tSpace:
	case tComment:
		s.comments = append(s.comments, &ast.Comment{Slash: p, Text: strings.TrimRight(t.Value, " \t\r")})
	case tBadString:
		s.errs.Add(p, p.Advance(len(t.Value)), "string literal not terminated")
		s.bad = append(s.bad, t.Pos.Offset)
		t.Type = tString
		s.toks = append(s.toks, t)
	case tBad:
		s.errs.Add(p, p.Advance(len(t.Value)), "unexpected character %q", t.Value)
		s.bad = append(s.bad, t.Pos.Offset)
	default:
		s.toks = append(s.toks, t)
	}
}

// lineStarts returns the byte offset at which each line begins. A UTF-8
// byte order mark is not part of the first line: columns count after it.
func lineStarts(src []byte) []int {
	starts := []int{0}
	if bytes.HasPrefix(src, bom) {
		starts[0] = len(bom)
	}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// fixPos recomputes line and byte column from the offset.
func fixPos(p lexer.Position, lines []int) lexer.Position {
	lo, hi := 0, len(lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if lines[mid] <= p.Offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	p.Line = lo + 1
	p.Column = p.Offset - lines[lo] + 1
	return p
}

// astPos converts a participle position.
func astPos(p lexer.Position) ast.Pos {
	return ast.Pos{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Column: p.Column}
}

// tokEnd is the position just after t.
func tokEnd(t lexer.Token) ast.Pos { return astPos(t.Pos).Advance(len(t.Value)) }

// is reports whether t is the punctuation or keyword v.
func is(t lexer.Token, v string) bool {
	return (t.Type == tPunct || t.Type == tKeyword) && t.Value == v
}
