package parser

import "github.com/fg-infer/fg/lang/ast"

// Incomplete reports whether src is an unfinished statement or block that
// the REPL should extend with more lines before parsing: a bracket left
// open, or a last token (ignoring comments) after which a newline does not
// end the statement (a binary operator, comma, `=`, `~`, ...). Input with a
// lexical error or a stray closing bracket is complete: parsing it reports
// the error.
func Incomplete(src []byte) (incomplete bool) {
	defer func() {
		if recover() != nil {
			incomplete = false
		}
	}()
	sc := scan(ast.NewFileSet().AddFile("", src), src)
	if len(sc.errs) > 0 {
		return false
	}
	depth := 0
	last := -1
	for i, t := range sc.toks {
		switch {
		case t.EOF():
			continue
		case is(t, "(") || is(t, "[") || is(t, "{"):
			depth++
		case is(t, ")") || is(t, "]") || is(t, "}"):
			depth--
			if depth < 0 {
				return false
			}
		}
		if t.Type != tEOL {
			last = i
		}
	}
	if depth > 0 {
		return true
	}
	if last < 0 {
		return false
	}
	t := sc.toks[last]
	return (t.Type == tPunct || t.Type == tKeyword) && continues[t.Value]
}
