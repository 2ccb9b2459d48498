package parser

import (
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

// scan tokenises src, the contents of file, with the scanner (lexDef's
// hand-written equivalent). Token lines and columns are the file's (its
// line table), so that they agree with the positions of the nodes.
func scan(file *ast.SourceFile, src []byte) *scanned {
	// At most one token per byte, and rarely fewer than one per two bytes
	// in large (data-laden) files: the estimate spares the repeated growth
	// of a large file's token slice.
	s := &scanned{toks: make([]lexer.Token, 0, len(src)/2+2)}
	sc := &scanner{filename: file.Name(), src: string(src)}
	for {
		t := sc.Next()
		p := file.Position(file.Pos(t.Pos.Offset))
		t.Pos.Line, t.Pos.Column = p.Line, p.Column
		if t.EOF() {
			s.toks = append(s.toks, t)
			return s
		}
		s.add(file, t)
	}
}

// add files one raw token.
func (s *scanned) add(file *ast.SourceFile, t lexer.Token) {
	p := position(t.Pos)
	switch t.Type {
	case tSpace:
	case tComment:
		s.comments = append(s.comments, &ast.Comment{Slash: file.Pos(t.Pos.Offset), Text: strings.TrimRight(t.Value, " \t\r")})
	case tBadString:
		s.errs.Add(p, advance(p, len(t.Value)), "string literal not terminated")
		s.bad = append(s.bad, t.Pos.Offset)
		t.Type = tString
		s.toks = append(s.toks, t)
	case tBad:
		s.errs.Add(p, advance(p, len(t.Value)), "unexpected character %q", t.Value)
		s.bad = append(s.bad, t.Pos.Offset)
	default:
		s.toks = append(s.toks, t)
	}
}

// position converts a participle position (of a token from scan, or
// made from one) for an error.
func position(p lexer.Position) ast.Position {
	return ast.Position{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Column: p.Column}
}

// advance returns the position n bytes further on the same line.
func advance(p ast.Position, n int) ast.Position {
	if !p.IsValid() {
		return p
	}
	p.Offset += n
	p.Column += n
	return p
}

// tokEnd is the position just after t.
func tokEnd(t lexer.Token) ast.Position { return advance(position(t.Pos), len(t.Value)) }

// is reports whether t is the punctuation or keyword v.
func is(t lexer.Token, v string) bool {
	return (t.Type == tPunct || t.Type == tKeyword) && t.Value == v
}
