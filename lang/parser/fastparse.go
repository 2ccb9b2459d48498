package parser

import "github.com/alecthomas/participle/v2/lexer"

// fastparse.go is a hand-written recursive-descent parser for the grammar
// of grammar.go. participle stays the definition of the language and the
// source of every syntax error message; this parser is the fast path for
// statements that parse. It builds exactly the grammar values participle
// builds (TestFastParseMatchesParticiple compares them on every corpus
// file and FuzzFastParse on random input) and gives up at the first token
// it does not expect, so that participle parses that statement again and
// phrases the error.
//
// participle's generic machinery (a reflect-driven walk with a lookahead
// branch per alternative at each of the ten precedence levels) costs about
// 10 KB of garbage per token; this parser allocates only the values it
// returns, which makes the front end linear with a small constant (see
// BenchmarkCheckFrontEnd in compile).

// fast holds the tokens of one statement and a cursor; the end of the
// slice (or an EOF token) ends the statement.
type fast struct {
	toks []lexer.Token
	i    int
}

// giveUp unwinds a fast parse that met a token it does not expect.
type giveUp struct{}

// fastStmt parses the tokens of one statement; ok is false
// when the statement is not well formed.
func fastStmt(toks []lexer.Token) (g *gStmt, ok bool) {
	defer catchGiveUp(&ok)
	p := &fast{toks: toks}
	g = p.stmt()
	p.want(p.peek().EOF())
	return g, true
}

// fastExpr parses tokens that form one expression.
func fastExpr(toks []lexer.Token) (g *gExpr, ok bool) {
	defer catchGiveUp(&ok)
	p := &fast{toks: toks}
	g = p.expr()
	p.want(p.peek().EOF())
	return g, true
}

func catchGiveUp(ok *bool) {
	if r := recover(); r != nil {
		if _, is := r.(giveUp); !is {
			panic(r)
		}
		*ok = false
	}
}

func (p *fast) want(cond bool) {
	if !cond {
		panic(giveUp{})
	}
}

func (p *fast) peek() lexer.Token { return p.peekAt(0) }

// peekAt returns the token k places ahead, or an EOF token.
func (p *fast) peekAt(k int) lexer.Token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return lexer.Token{Type: lexer.EOF}
}

func (p *fast) next() lexer.Token {
	t := p.peek()
	p.want(!t.EOF())
	p.i++
	return t
}

// at reports whether the next token is the punctuation or keyword v.
func (p *fast) at(v string) bool { return is(p.peek(), v) }

// accept consumes the next token if it is v.
func (p *fast) accept(v string) (lexer.Token, bool) {
	if p.at(v) {
		return p.next(), true
	}
	return lexer.Token{}, false
}

// expect consumes the token v or gives up.
func (p *fast) expect(v string) lexer.Token {
	p.want(p.at(v))
	return p.next()
}

func (p *fast) ident() *gIdent {
	t := p.peek()
	p.want(t.Type == tIdent)
	p.i++
	return &gIdent{Pos: t.Pos, Name: t.Value}
}

func (p *fast) stmt() *gStmt {
	t := p.peek()
	if t.Type != tKeyword {
		return &gStmt{Tilde: p.tilde()}
	}
	switch t.Value {
	case "model":
		return &gStmt{Model: &gModel{Kw: p.next(), Name: p.ident()}}
	case "import":
		kw := p.next()
		path := p.peek()
		p.want(path.Type == tString)
		p.i++
		return &gStmt{Import: &gImport{Kw: kw, Path: path}}
	case "data":
		return &gStmt{Data: p.data()}
	case "param":
		d := &gParam{Kw: p.next(), Name: p.ident()}
		p.expect("=")
		d.Value = p.expr()
		return &gStmt{Param: d}
	case "latent":
		return &gStmt{Latent: p.latent()}
	case "factor":
		return &gStmt{Factor: &gFactor{Kw: p.next(), Call: p.expr()}}
	case "for":
		return &gStmt{For: p.forStmt()}
	case "infer":
		return &gStmt{Infer: p.infer()}
	case "predict":
		d := &gPredict{Kw: p.next(), Name: p.ident()}
		p.expect("=")
		d.Value = p.expr()
		return &gStmt{Predict: d}
	case "expect":
		d := &gExpect{Kw: p.next(), X: p.expr()}
		if _, ok := p.accept("for"); ok {
			d.Label = p.ident()
		}
		return &gStmt{Expect: d}
	case "learn":
		return &gStmt{Learn: p.learn()}
	}
	return &gStmt{Tilde: p.tilde()}
}

func (p *fast) data() *gData {
	d := &gData{Kw: p.next(), Name: p.ident()}
	if _, ok := p.accept(":"); ok {
		d.Type = p.typ()
	}
	p.expect("=")
	d.Value = p.expr()
	return d
}

func (p *fast) latent() *gLatent {
	d := &gLatent{Kw: p.next(), Name: p.ident()}
	p.expect(":")
	d.Type = p.typ()
	if _, ok := p.accept("~"); ok {
		d.Prior = p.expr()
	}
	return d
}

func (p *fast) typ() *gType {
	t := &gType{Base: p.ident()}
	if _, ok := p.accept("("); ok {
		t.CatK = p.expr()
		t.Rparen = p.expect(")")
	}
	if lb, ok := p.accept("["); ok {
		t.Lbrack = lb
		t.Dims = []*gExpr{p.expr()}
		for p.at(",") {
			p.next()
			t.Dims = append(t.Dims, p.expr())
		}
		t.Rbrack = p.expect("]")
	}
	return t
}

func (p *fast) forStmt() *gFor {
	f := &gFor{Kw: p.next()}
	if p.at("(") {
		p.next()
		tu := &gTuple{Vars: []*gIdent{p.ident()}}
		for p.at(",") {
			p.next()
			tu.Vars = append(tu.Vars, p.ident())
		}
		p.expect(")")
		f.Tuple = tu
	} else {
		f.Var = p.ident()
	}
	p.expect("in")
	f.Iter = &gIter{Lo: p.expr()}
	if r, ok := p.accept(".."); ok {
		f.Iter.Range, f.Iter.Hi = r, p.expr()
	}
	b := &gBlock{Lbrace: p.expect("{")}
	if !p.at("}") {
		b.Stmts = []*gStmt{p.stmt()}
		for p.peek().Type == tEOL {
			p.next()
			b.Stmts = append(b.Stmts, p.stmt())
		}
	}
	b.Rbrace = p.expect("}")
	f.Body = b
	return f
}

func (p *fast) infer() *gInfer {
	d := &gInfer{Kw: p.next(), Method: p.ident()}
	if _, ok := p.accept("as"); ok {
		d.Label = p.ident()
	}
	if p.at("{") {
		d.Options = p.options()
	}
	return d
}

func (p *fast) learn() *gLearn {
	d := &gLearn{Kw: p.next(), Items: []*gLearnItem{p.learnItem()}}
	for p.at(",") {
		p.next()
		d.Items = append(d.Items, p.learnItem())
	}
	if _, ok := p.accept("by"); ok {
		d.By = p.ident()
	}
	if p.at("{") {
		d.Options = p.options()
	}
	return d
}

func (p *fast) learnItem() *gLearnItem {
	it := &gLearnItem{Name: p.ident()}
	if _, ok := p.accept("in"); ok {
		p.expect("[")
		it.Lo = p.expr()
		p.expect(",")
		it.Hi = p.expr()
		it.Rbrack = p.expect("]")
	}
	return it
}

// options is `{ (OPTION ((, | EOL) OPTION)* ,?)? }`.
func (p *fast) options() *gOptions {
	o := &gOptions{Lbrace: p.expect("{")}
	if !p.at("}") {
		o.Items = []*gOption{p.option()}
		for p.at(",") || p.peek().Type == tEOL {
			if sep := p.next(); is(sep, ",") && p.at("}") {
				break
			}
			o.Items = append(o.Items, p.option())
		}
	}
	o.Rbrace = p.expect("}")
	return o
}

func (p *fast) option() *gOption {
	o := &gOption{Key: p.ident()}
	p.expect("=")
	o.Value = p.expr()
	return o
}

func (p *fast) tilde() *gTilde {
	t := &gTilde{LHS: p.expr()}
	t.Tilde = p.expect("~")
	t.Dist = p.expr()
	return t
}

// Expressions: one method per precedence level, as in grammar.go.

func (p *fast) expr() *gExpr {
	e := &gExpr{Left: p.and()}
	for p.at("or") {
		e.Rest = append(e.Rest, &gOrTail{Op: p.next(), Right: p.and()})
	}
	return e
}

func (p *fast) and() *gAnd {
	e := &gAnd{Left: p.not()}
	for p.at("and") {
		e.Rest = append(e.Rest, &gAndTail{Op: p.next(), Right: p.not()})
	}
	return e
}

func (p *fast) not() *gNot {
	e := &gNot{}
	for p.at("not") {
		e.Nots = append(e.Nots, &gNotOp{Op: p.next()})
	}
	e.X = p.cmp()
	return e
}

func (p *fast) cmp() *gCmp {
	e := &gCmp{Left: p.sum()}
	for p.at("==") || p.at("!=") || p.at("<=") || p.at(">=") || p.at("<") || p.at(">") {
		e.Rest = append(e.Rest, &gCmpTail{Op: p.next(), Right: p.sum()})
	}
	return e
}

func (p *fast) sum() *gSum {
	e := &gSum{Left: p.term()}
	for p.at("+") || p.at("-") {
		e.Rest = append(e.Rest, &gSumTail{Op: p.next(), Right: p.term()})
	}
	return e
}

func (p *fast) term() *gTerm {
	e := &gTerm{Left: p.unary()}
	for p.at("*") || p.at("/") || p.at("@") {
		e.Rest = append(e.Rest, &gTermTail{Op: p.next(), Right: p.unary()})
	}
	return e
}

func (p *fast) unary() *gUnary {
	e := &gUnary{}
	for p.at("-") {
		e.Negs = append(e.Negs, &gNegOp{Op: p.next()})
	}
	e.X = p.power()
	return e
}

func (p *fast) power() *gPower {
	e := &gPower{Base: p.postfix()}
	if op, ok := p.accept("^"); ok {
		e.Op, e.Exp = op, p.unary()
	}
	return e
}

func (p *fast) postfix() *gPostfix {
	e := &gPostfix{X: p.primary()}
	for {
		switch {
		case p.at("("):
			e.Ops = append(e.Ops, &gPost{Call: p.call()})
		case p.at("["):
			e.Ops = append(e.Ops, &gPost{Index: p.index()})
		case p.at("."):
			p.next()
			e.Ops = append(e.Ops, &gPost{Sel: p.ident()})
		default:
			return e
		}
	}
}

func (p *fast) call() *gCall {
	c := &gCall{Lparen: p.next()}
	if !p.at(")") {
		c.Args = []*gArg{p.arg()}
		for p.at(",") {
			p.next()
			if p.at(")") {
				break
			}
			c.Args = append(c.Args, p.arg())
		}
	}
	c.Rparen = p.expect(")")
	return c
}

func (p *fast) arg() *gArg {
	if p.peek().Type == tIdent && is(p.peekAt(1), "=") {
		a := &gNamedArg{Name: p.ident()}
		p.next()
		a.Value = p.expr()
		return &gArg{Named: a}
	}
	return &gArg{X: p.expr()}
}

func (p *fast) index() *gIndex {
	x := &gIndex{Lbrack: p.next(), Items: []*gIndexItem{p.indexItem()}}
	for p.at(",") {
		p.next()
		x.Items = append(x.Items, p.indexItem())
	}
	x.Rbrack = p.expect("]")
	return x
}

// indexItem is `EXPR? (: EXPR?)?`; it may be empty (lowering reports it).
func (p *fast) indexItem() *gIndexItem {
	it := &gIndexItem{}
	if startsExpr(p.peek()) {
		it.Lo = p.expr()
	}
	if c, ok := p.accept(":"); ok {
		it.Colon = c
		if startsExpr(p.peek()) {
			it.Hi = p.expr()
		}
	}
	return it
}

// startsExpr reports whether t can begin an expression.
func startsExpr(t lexer.Token) bool {
	switch t.Type {
	case tNumber, tString, tIdent:
		return true
	}
	return is(t, "true") || is(t, "false") || is(t, "not") || is(t, "-") || is(t, "(") || is(t, "[")
}

func (p *fast) primary() *gPrimary {
	t := p.peek()
	switch {
	case t.Type == tNumber:
		p.i++
		return &gPrimary{Number: &t}
	case t.Type == tString:
		p.i++
		return &gPrimary{String: &t}
	case is(t, "true") || is(t, "false"):
		p.i++
		return &gPrimary{Bool: &t}
	case t.Type == tIdent:
		return &gPrimary{Ident: p.ident()}
	case is(t, "["):
		return &gPrimary{List: p.list()}
	case is(t, "("):
		x := &gParen{Lparen: p.next(), X: p.expr()}
		x.Rparen = p.expect(")")
		return &gPrimary{Paren: x}
	}
	panic(giveUp{})
}

func (p *fast) list() *gList {
	l := &gList{Lbrack: p.next()}
	if !p.at("]") {
		l.Elems = []*gExpr{p.expr()}
		for p.at(",") {
			p.next()
			if p.at("]") {
				break
			}
			l.Elems = append(l.Elems, p.expr())
		}
	}
	l.Rbrack = p.expect("]")
	return l
}
