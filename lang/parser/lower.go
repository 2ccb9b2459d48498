package parser

import (
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/fg-infer/fg/lang/ast"
)

// lowerer turns grammar values into lang/ast nodes. It is the only place
// that knows both representations. Checks that the grammar cannot express
// (non-chaining comparisons, positional-after-named arguments, duplicate
// keys, literal values) are made here and reported as errors; lowering
// always completes so that a file with errors still yields a tree.
type lowerer struct {
	file *ast.SourceFile // the file the tokens are from
	errs ast.ErrorList
}

func (l *lowerer) errorf(n ast.Node, format string, args ...any) {
	l.errs.Add(l.file.Position(n.Pos()), l.file.Position(n.End()), format, args...)
}

// pos is the position of a token; NoPos for an optional token the
// grammar did not match (it has no line).
func (l *lowerer) pos(t lexer.Token) ast.Pos { return l.at(t.Pos) }

func (l *lowerer) at(p lexer.Position) ast.Pos {
	if p.Line == 0 {
		return ast.NoPos
	}
	return l.file.Pos(p.Offset)
}

func (l *lowerer) ident(g *gIdent) *ast.Ident {
	if g == nil {
		return nil
	}
	return &ast.Ident{NamePos: l.at(g.Pos), Name: g.Name}
}

func (l *lowerer) stmts(gs []*gStmt) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(gs))
	for _, g := range gs {
		out = append(out, l.stmt(g))
	}
	return out
}

func (l *lowerer) stmt(g *gStmt) ast.Stmt {
	switch {
	case g.Model != nil:
		return &ast.ModelStmt{Model: l.pos(g.Model.Kw), Name: l.ident(g.Model.Name)}
	case g.Import != nil:
		return &ast.ImportStmt{Import: l.pos(g.Import.Kw), Path: l.str(g.Import.Path)}
	case g.Data != nil:
		d := g.Data
		return &ast.DataStmt{Data: l.pos(d.Kw), Name: l.ident(d.Name), Type: l.typ(d.Type), Value: l.expr(d.Value)}
	case g.Param != nil:
		return &ast.ParamStmt{Param: l.pos(g.Param.Kw), Name: l.ident(g.Param.Name), Value: l.expr(g.Param.Value)}
	case g.Latent != nil:
		d := g.Latent
		return &ast.LatentStmt{Latent: l.pos(d.Kw), Name: l.ident(d.Name), Type: l.typ(d.Type), Prior: l.optExpr(d.Prior)}
	case g.Factor != nil:
		return l.factor(g.Factor)
	case g.For != nil:
		return l.forStmt(g.For)
	case g.Infer != nil:
		return l.infer(g.Infer)
	case g.Predict != nil:
		d := g.Predict
		return &ast.PredictStmt{Predict: l.pos(d.Kw), Name: l.ident(d.Name), Value: l.expr(d.Value)}
	case g.Expect != nil:
		d := g.Expect
		return &ast.ExpectStmt{Expect: l.pos(d.Kw), X: l.expr(d.X), Label: l.ident(d.Label)}
	case g.Learn != nil:
		return l.learn(g.Learn)
	}
	t := g.Tilde
	return &ast.TildeStmt{LHS: l.expr(t.LHS), Tilde: l.pos(t.Tilde), Dist: l.expr(t.Dist)}
}

func (l *lowerer) factor(g *gFactor) ast.Stmt {
	x := l.expr(g.Call)
	call, ok := x.(*ast.CallExpr)
	if !ok {
		l.errorf(x, "factor needs a potential call such as `ising(x[i], x[j], J)` or `exp(...)`, not `%s`", ast.ExprString(x))
		call = &ast.CallExpr{Fun: x, Lparen: x.End(), Rparen: x.End()}
	}
	return &ast.FactorStmt{Factor: l.pos(g.Kw), Call: call}
}

func (l *lowerer) typ(g *gType) *ast.TypeExpr {
	if g == nil {
		return nil
	}
	t := &ast.TypeExpr{Base: l.ident(g.Base), CatK: l.optExpr(g.CatK), Dims: l.exprs(g.Dims)}
	if t.CatK != nil {
		t.Rparen = l.pos(g.Rparen)
	}
	if len(t.Dims) > 0 {
		t.Lbrack, t.Rbrack = l.pos(g.Lbrack), l.pos(g.Rbrack)
	}
	return t
}

func (l *lowerer) forStmt(g *gFor) *ast.ForStmt {
	s := &ast.ForStmt{For: l.pos(g.Kw), Lbrace: l.pos(g.Body.Lbrace), Rbrace: l.pos(g.Body.Rbrace)}
	if g.Tuple != nil {
		s.Tuple = true
		for _, v := range g.Tuple.Vars {
			s.Vars = append(s.Vars, l.ident(v))
		}
	} else {
		s.Vars = []*ast.Ident{l.ident(g.Var)}
	}
	s.Iter = l.iter(g.Iter)
	s.Body = l.stmts(g.Body.Stmts)
	return s
}

func (l *lowerer) iter(g *gIter) ast.Expr {
	lo := l.expr(g.Lo)
	if g.Hi != nil {
		return &ast.RangeExpr{Lo: lo, OpPos: l.pos(g.Range), Hi: l.expr(g.Hi)}
	}
	return lo // a call (batches, edges) or a vector of indices, checked by compile
}

func (l *lowerer) infer(g *gInfer) *ast.InferStmt {
	s := &ast.InferStmt{Infer: l.pos(g.Kw), Method: l.ident(g.Method), Label: l.ident(g.Label)}
	s.Lbrace, s.Options, s.Rbrace = l.options(g.Options)
	return s
}

func (l *lowerer) learn(g *gLearn) *ast.LearnStmt {
	s := &ast.LearnStmt{Learn: l.pos(g.Kw), By: l.ident(g.By)}
	for _, it := range g.Items {
		item := &ast.LearnItem{Name: l.ident(it.Name)}
		if it.Lo != nil {
			item.Lo, item.Hi, item.Rbrack = l.expr(it.Lo), l.expr(it.Hi), l.pos(it.Rbrack)
		}
		s.Items = append(s.Items, item)
	}
	s.Lbrace, s.Options, s.Rbrace = l.options(g.Options)
	return s
}

// options lowers an option block, rejecting repeated keys.
func (l *lowerer) options(g *gOptions) (lb ast.Pos, opts []*ast.Option, rb ast.Pos) {
	if g == nil {
		return ast.NoPos, nil, ast.NoPos
	}
	seen := map[string]bool{}
	for _, o := range g.Items {
		opt := &ast.Option{Key: l.ident(o.Key), Value: l.expr(o.Value)}
		if seen[opt.Key.Name] {
			l.errorf(opt.Key, "option `%s` given twice", opt.Key.Name)
		}
		seen[opt.Key.Name] = true
		opts = append(opts, opt)
	}
	return l.pos(g.Lbrace), opts, l.pos(g.Rbrace)
}

func (l *lowerer) str(t lexer.Token) *ast.StringLit {
	s := &ast.StringLit{ValuePos: l.pos(t), Raw: t.Value}
	v, err := strconv.Unquote(t.Value)
	if err != nil {
		l.errorf(s, "invalid string literal %s", t.Value)
	}
	s.Value = v
	return s
}

func (l *lowerer) number(t lexer.Token) *ast.NumberLit {
	n := &ast.NumberLit{ValuePos: l.pos(t), Text: t.Value}
	v, err := strconv.ParseFloat(t.Value, 64)
	switch {
	case err != nil:
		l.errorf(n, "number %s is out of range (the largest is about 1.8e308)", t.Value)
	case v == 0 && strings.Trim(mantissa(t.Value), "0.") != "":
		// Underflow is treated like overflow: a literal is never silently
		// replaced by a different number.
		l.errorf(n, "number %s is out of range: it rounds to 0 (the smallest positive number is about 4.9e-324); write 0 for zero", t.Value)
	}
	n.Value = v
	return n
}

// mantissa is a number literal without its exponent.
func mantissa(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return s[:i]
	}
	return s
}
