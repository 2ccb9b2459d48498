// Package parser reads fg model files into lang/ast trees.
//
// The pipeline is lexer → token filter → participle grammar → lowering:
//
//   - lexer.go: the token definition (lexDef, participle's simple lexer);
//     comments are collected for the printer, malformed characters become
//     errors without stopping. scanner.go yields the same tokens by hand,
//     much faster; tests hold it to lexDef.
//   - filter.go: newline rules (a newline ends a statement except inside
//     () and [], after an operator or comma, next to braces) and bracket
//     balance with precise messages.
//   - grammar.go: the participle grammar (private types; EBNF() prints it).
//     fastparse.go parses a well-formed statement into the same grammar
//     values by recursive descent; participle parses the statements it
//     gives up on and words their errors. Together they keep the front end
//     linear in the input (BenchmarkCheckFrontEnd in compile).
//   - lower.go, lower_expr.go: the one place where grammar values become
//     ast nodes, with the checks the grammar cannot express.
//
// Error recovery works statement by statement: the filtered tokens are cut
// at top-level terminators and every statement is parsed on its own, so a
// file with two bad lines reports both. A for plate that fails is parsed
// again as its header plus each body statement, recursively, so errors
// inside plates are also reported line by line.
package parser

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/diag"
)

var (
	fileParser = participle.MustBuild[gFile](participle.Lexer(lexDef), participle.UseLookahead(4))
	exprParser = participle.MustBuild[gExpr](participle.Lexer(lexDef), participle.UseLookahead(4))

	optionParser = participle.MustBuild[gOption](participle.Lexer(lexDef), participle.UseLookahead(4))
)

// ParseFile parses a model file, adding it to fset: the positions of the
// tree are fset's. On error it returns the (partial) file and an
// ast.ErrorList sorted by position.
func ParseFile(fset *ast.FileSet, filename string, src []byte) (f *ast.File, err error) {
	defer recoverInternal(filename, &err)
	file := fset.AddFile(filename, src)
	sc := scan(file, src)
	flt := filterTokens(sc.toks)
	sc.toks, flt.in = nil, nil // only the filtered tokens are needed now
	p := &fileParse{bad: append(sc.bad, flt.bad...), low: lowerer{file: file}}
	p.errs = append(append(p.errs, sc.errs...), flt.errs...)
	f = &ast.File{
		Filename: filename,
		Comments: sc.comments,
		Start:    file.Pos(0),
		Finish:   file.Pos(len(src)),
	}
	f.Stmts = p.block(flt.out[:len(flt.out)-1], -1, flt.out[len(flt.out)-1])
	p.errs = append(p.errs, p.low.errs...)
	p.errs.Sort()
	return f, p.errs.Truncate().Err()
}

// ParseStmt parses one or more statements typed at the REPL, adding them
// to fset as a file.
func ParseStmt(fset *ast.FileSet, filename string, src []byte) ([]ast.Stmt, error) {
	f, err := ParseFile(fset, filename, src)
	if f == nil {
		return nil, err
	}
	return f.Stmts, err
}

// ParseExpr parses a single expression, e.g. an expect typed at the REPL,
// in a file set of its own: its errors are complete, the positions of its
// tree are of use only for their order (ParseExprFrom keeps them).
func ParseExpr(src string) (ast.Expr, error) {
	return ParseExprFrom(ast.NewFileSet(), "", src)
}

// ParseExprFrom parses a single expression, e.g. a --set value, adding it
// to fset as a file called filename.
func ParseExprFrom(fset *ast.FileSet, filename, src string) (x ast.Expr, err error) {
	defer recoverInternal(filename, &err)
	file := fset.AddFile(filename, []byte(src))
	sc := scan(file, []byte(src))
	flt := filterTokens(sc.toks)
	errs := append(sc.errs, flt.errs...)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	toks := flt.out
	if g, ok := fastExpr(toks); ok {
		l := lowerer{file: file}
		x = l.expr(g)
		return x, l.errs.Err()
	}
	g, perr := exprParser.ParseFromLexer(peeking(toks))
	if perr != nil {
		errs = append(errs, convertError(perr, toks[len(toks)-1], toks))
		return nil, errs
	}
	l := lowerer{file: file}
	x = l.expr(g)
	return x, l.errs.Err()
}

// EBNF returns the grammar in participle's EBNF notation, with the
// package-private type prefix removed.
func EBNF() string {
	return ebnfPrefix.ReplaceAllString(fileParser.String(), "$1")
}

var ebnfPrefix = regexp.MustCompile(`\bG([A-Z]\w*)`)

func recoverInternal(filename string, err *error) {
	if r := recover(); r != nil {
		p := ast.Position{Filename: filename, Line: 1, Column: 1}
		*err = ast.ErrorList{{Pos: p, End: p, Msg: fmt.Sprintf("internal parser error: %v", r)}}
	}
}

// sliceLexer replays a token slice ending in EOF.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (s *sliceLexer) Next() (lexer.Token, error) {
	t := s.toks[s.i]
	if s.i < len(s.toks)-1 {
		s.i++
	}
	return t, nil
}

func peeking(toks []lexer.Token) *lexer.PeekingLexer {
	pl, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil { // Upgrade only fails on lexer errors; sliceLexer has none
		panic(err)
	}
	return pl
}

// convertError turns a participle error into an ast.Error. term is the
// token that ended the statement (EOL or EOF), reported for "unexpected
// end"; toks are the statement's tokens, used for better messages.
func convertError(err error, term lexer.Token, toks []lexer.Token) *ast.Error {
	perr, ok := err.(participle.Error)
	if !ok {
		p := position(term.Pos)
		return &ast.Error{Pos: p, End: advance(p, 1), Msg: err.Error()}
	}
	ut, ok := err.(*participle.UnexpectedTokenError)
	if !ok {
		p := position(perr.Position())
		return &ast.Error{Pos: p, End: advance(p, 1), Msg: perr.Message()}
	}
	tok := ut.Unexpected
	if tok.EOF() && term.Type == tPunct { // a piece of an option block ended by `,` or `}`
		tok = term
	}
	p := position(tok.Pos)
	e := &ast.Error{Pos: p, End: advance(p, max(1, len(tok.Value)))}
	if msg, ok := unknownStatement(toks); ok {
		e.Pos, e.End, e.Msg = position(toks[0].Pos), tokEnd(toks[0]), msg
		return e
	}
	e.Msg = "unexpected " + describe(tok, term) + expected(ut, tok, toks)
	return e
}

// expected phrases what the grammar wanted instead of tok.
func expected(ut *participle.UnexpectedTokenError, tok lexer.Token, toks []lexer.Token) string {
	if prev, ok := before(toks, tok); ok && is(tok, ",") && (is(prev, ",") || is(prev, "(") || is(prev, "[")) {
		return "; expected an expression"
	}
	want := expectation(ut.Message())
	switch {
	case want == "" && !tok.EOF():
		return "; expected the end of the statement"
	case want == "; expected `{`" && tok.EOF():
		return want + " on the same line"
	case want == "; expected a name" && tok.Type == tKeyword:
		return want + " (`" + tok.Value + "` is a reserved word)"
	}
	return want
}

// before returns the token preceding tok in toks.
func before(toks []lexer.Token, tok lexer.Token) (lexer.Token, bool) {
	for i := 1; i < len(toks); i++ {
		if toks[i].Pos.Offset == tok.Pos.Offset && !tok.EOF() {
			return toks[i-1], true
		}
	}
	return lexer.Token{}, false
}

// unknownStatement recognises a misspelt statement keyword: a statement
// that starts with two names in a row (`paramm a = 1`), which no statement
// form allows.
func unknownStatement(toks []lexer.Token) (string, bool) {
	if len(toks) < 2 || toks[0].Type != tIdent || toks[1].Type != tIdent {
		return "", false
	}
	names := make([]string, 0, len(stmtKeywords))
	for _, k := range keywords {
		if stmtKeywords[k] {
			names = append(names, k)
		}
	}
	msg := "unknown statement `" + toks[0].Value + "`"
	if s := diag.Suggest(toks[0].Value, names); s != "" {
		return msg + "; did you mean `" + s + "`?", true
	}
	return msg + "; statements start with " + strings.Join(names, ", ") + " or are `EXPR ~ DIST(...)`", true
}

// describe names the unexpected token for a message.
func describe(tok, term lexer.Token) string {
	switch {
	case !tok.EOF():
		if tok.Type == tEOL {
			return "end of line"
		}
		return "`" + tok.Value + "`"
	case term.Type == tEOL && term.Value == ";":
		return "`;`"
	case term.Type == tEOL:
		return "end of line"
	}
	return "end of file"
}

var expectedRx = regexp.MustCompile(`\(expected (.*)\)$`)

// expectation turns participle's "(expected X ...)" into "; expected ...".
func expectation(msg string) string {
	m := expectedRx.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	first := strings.Fields(strings.TrimLeft(m[1], "("))
	if len(first) == 0 {
		return ""
	}
	w := first[0]
	if strings.HasPrefix(w, `"`) {
		return "; expected `" + strings.Trim(w, `"`) + "`"
	}
	if name, ok := friendly[strings.TrimPrefix(w, "G")]; ok {
		return "; expected " + name
	}
	return ""
}

var friendly = map[string]string{
	"Expr": "an expression", "Ident": "a name", "Type": "a type such as `real[N]`",
	"Stmt": "a statement", "Option": "an option `key = value`", "Block": "`{`",
	"Iter": "a range `A..B` or a call", "LearnItem": "a name", "Options": "`{`",
	"Arg": "an argument", "IndexItem": "an index", "Tuple": "`(`",
	"And": "an expression", "Not": "an expression", "Cmp": "an expression",
	"Sum": "an expression", "Term": "an expression", "Unary": "an expression",
	"Power": "an expression", "Postfix": "an expression", "Primary": "an expression",
	"<ident>": "a name", "<string>": "a string", "<number>": "a number",
}
