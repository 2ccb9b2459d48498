package compile

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
	"github.com/fg-infer/fg/stdlib"
)

func parseStmts(fset *ast.FileSet, name string, src []byte) ([]ast.Stmt, error) {
	return parser.ParseStmt(fset, name, src)
}

// specCall splits an option value written NAME or NAME(args) and binds the
// args to the registry entry of that kind.
func (c *compiler) specCall(e ast.Expr, k stdlib.Kind) *args {
	var call *ast.CallExpr
	var id *ast.Ident
	switch e := e.(type) {
	case *ast.Ident:
		id, call = e, &ast.CallExpr{Fun: e, Lparen: e.End(), Rparen: e.End()}
	case *ast.CallExpr:
		call = e
		if x, ok := e.Fun.(*ast.Ident); ok {
			id = x
		}
	}
	if id == nil {
		c.fail(e, "expected a %s name, e.g. %s", k, stdlib.Names(k)[0])
	}
	b, err := stdlib.Find(k, id.Name)
	if err != nil {
		c.fail(id, "%v", err)
	}
	return c.bind(call, b)
}

// inferOption applies one `key = value` of an infer line: its descriptor
// in the method's options schema (infer.Entry.Options) says the kind of
// value to read, its range check and where it is stored. A key of another
// method's schema does not apply; any other is unknown (infer.InferOptions
// lists them all).
func (c *compiler) inferOption(spec *InferSpec, o *ast.Option) {
	if e, err := infer.Lookup(spec.Method); err == nil {
		if opt, ok := e.Options.Lookup(o.Key.Name); ok {
			setOption(c, "infer "+string(spec.Method), opt, &spec.LineOptions, o)
			return
		}
	}
	if ms := infer.MethodsAccepting(o.Key.Name); len(ms) > 0 {
		c.fail(o.Key, "option `%s` does not apply to %s (only to %v)", o.Key.Name, spec.Method, ms)
	}
	keys := infer.InferOptions.Keys()
	msg := fmt.Sprintf("unknown infer option `%s`", o.Key.Name)
	if dym := didYouMean(o.Key.Name, keys); dym != "" {
		msg += dym
	} else {
		msg += "; options are " + joinQuoted(keys)
	}
	c.fail(o.Key, "%s", msg)
}

// setOption reads option o's value as its descriptor's kind says, checks
// it and stores it into dst. A refusal is reported at the value, one of a
// limit of the engine (infer.LimitError) at the whole option, naming line
// (as "infer mcmc").
func setOption[T any](c *compiler, line string, opt *infer.Option[T], dst *T, o *ast.Option) {
	v := c.optValue(opt.Kind, opt.Choices, o)
	if opt.Check != nil {
		err := opt.Check(v)
		if lim := (*infer.LimitError)(nil); errors.As(err, &lim) {
			c.fail(o, "%s: %v", line, lim)
		}
		c.check1(o.Value, err)
	}
	opt.Set(dst, v)
}

// optValue reads the value of option o of kind k (choices: the names a
// NameValue takes).
func (c *compiler) optValue(k infer.ValueKind, choices []string, o *ast.Option) infer.Value {
	switch k {
	case infer.NumberValue:
		return infer.Value{Num: c.optNum(o)}
	case infer.CountValue:
		return infer.Value{Int: c.optInt(o, math.MinInt)} // range: the option's Check
	case infer.BoolValue:
		return infer.Value{Bool: c.optBool(o)}
	case infer.DivergenceValue:
		return infer.Value{Divergence: c.divergence(o.Value)}
	case infer.ScheduleValue:
		s, seed := c.schedule(o.Value)
		return infer.Value{Schedule: s, Int: seed}
	case infer.SchemeValue:
		return infer.Value{Scheme: c.approx(o.Value)}
	case infer.NameValue:
		return infer.Value{Name: c.optIdent(o, strings.Join(choices, ", "))}
	}
	panic(fmt.Sprintf("compile: option %s of unknown kind %d", o.Key.Name, k))
}

// optIdent returns the name an option value is written as (family =
// full); any other expression is an error listing the choices.
func (c *compiler) optIdent(o *ast.Option, choices string) string {
	id, ok := o.Value.(*ast.Ident)
	if !ok {
		c.fail(o.Value, "%s is one of %s", o.Key.Name, choices)
	}
	return id.Name
}

// optBool returns the value of an option written true or false.
func (c *compiler) optBool(o *ast.Option) bool {
	b, ok := o.Value.(*ast.BoolLit)
	if !ok {
		c.fail(o.Value, "%s is true or false", o.Key.Name)
	}
	return b.Value
}

// check1 reports err, a range check of package infer, at n.
func (c *compiler) check1(n ast.Node, err error) {
	if err != nil {
		c.fail(n, "%v", err)
	}
}

// divergence parses kl, relaxed_kl(c = C), alpha(A), t(nu = NU).
func (c *compiler) divergence(e ast.Expr) infer.Divergence {
	a := c.specCall(e, stdlib.DivergenceName)
	f, err := infer.ParseDivFamily(a.b.Name)
	c.check1(e, err)
	p, at := 0.0, ast.Node(e)
	if len(a.b.Params) > 0 { // kl has none
		p, at = a.num(0, 0), a.at(0)
	}
	if f == infer.DivAlpha && c.vmpLimit(at, infer.Alpha{A: p}) {
		return infer.Alpha{A: p}
	}
	d, err := infer.NewDivergence(f, p)
	c.check1(at, err)
	return d
}

// schedule parses sequential, parallel, random(seed = S), residual, with
// the seed of random; which of them the engine serving the line runs is
// checked with the model (checkSchedule).
func (c *compiler) schedule(e ast.Expr) (infer.Schedule, int) {
	a := c.specCall(e, stdlib.ScheduleName)
	s, err := infer.ParseSchedule(a.b.Name)
	c.check1(e, err)
	if s != infer.Random {
		return s, 0
	}
	n := a.integer(0, infer.DefaultSeed)
	c.check1(a.at(0), infer.CheckSeed(n))
	return s, n
}

// approx parses a moment scheme: exact, gh(n = N), laplace, quick_laplace,
// gq, vq.
func (c *compiler) approx(e ast.Expr) infer.Scheme {
	a := c.specCall(e, stdlib.ApproxName)
	n := 0
	if len(a.b.Params) > 0 { // gh(n)
		n = a.integer(0, infer.DefaultGHNodes)
	}
	sc, err := infer.ParseScheme(a.b.Name, n)
	c.check1(e, err)
	return sc
}

func (c *compiler) optNum(o *ast.Option) float64 {
	v := c.eval(o.Value)
	if !v.isScalar() || v.k != kNum {
		c.fail(o.Value, "%s must be a number, got %s", o.Key.Name, v.describe())
	}
	return v.num[0]
}

func (c *compiler) optInt(o *ast.Option, lo int) int {
	n := c.intOf(o.Value, c.eval(o.Value), o.Key.Name)
	if n < lo {
		c.fail(o.Value, "%s must be ≥ %d, got %d", o.Key.Name, lo, n)
	}
	return n
}
