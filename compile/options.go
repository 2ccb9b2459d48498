package compile

import (
	"fmt"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
	"github.com/fg-infer/fg/stdlib"
)

func parseStmts(name string, src []byte) ([]ast.Stmt, error) {
	return parser.ParseStmt(name, src)
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

// inferOption applies one `key = value` of an infer line.
func (c *compiler) inferOption(spec *InferSpec, o *ast.Option) {
	st := &spec.Settings
	m := spec.Method
	only := func(methods ...string) {
		for _, x := range methods {
			if x == m {
				return
			}
		}
		c.fail(o.Key, "option `%s` does not apply to %s (only to %v)", o.Key.Name, m, methods)
	}
	switch o.Key.Name {
	case "divergence":
		only("ep", "bp")
		st.Divergence = c.divergence(o.Value)
	case "schedule":
		only("ep", "bp")
		a := c.specCall(o.Value, stdlib.ScheduleName)
		st.Schedule = map[string]infer.Schedule{"sequential": infer.Sequential, "parallel": infer.Parallel,
			"random": infer.Random, "residual": infer.Residual}[a.b.Name]
		if a.b.Name == "random" {
			st.Seed = uint64(c.nonNeg(a, 0, DefaultSeed))
		}
	case "damping":
		only("ep", "bp")
		st.Damping = c.optNum(o)
		if !(st.Damping > 0 && st.Damping <= 1) {
			c.fail(o.Value, "damping is a step size in (0, 1], got %s", fmtNum(st.Damping))
		}
	case "tol":
		only("ep", "bp")
		st.Tol = c.optNum(o)
		if !(st.Tol > 0) {
			c.fail(o.Value, "tol must be > 0, got %s", fmtNum(st.Tol))
		}
	case "max_iter":
		only("ep", "bp")
		st.MaxIter = c.optInt(o, 1)
	case "seed":
		st.Seed = uint64(c.optInt(o, 0))
	case "approx":
		only("ep")
		a := c.specCall(o.Value, stdlib.ApproxName)
		spec.Approx = a.b.Name
		if a.b.Name == "gh" {
			spec.GHPoints = c.nonNeg(a, 0, GHPoints)
			if spec.GHPoints < 2 {
				c.fail(o.Value, "gh needs n ≥ 2 points, got %d", spec.GHPoints)
			}
		}
	case "family":
		only("ep")
		id, ok := o.Value.(*ast.Ident)
		if !ok || (id.Name != "full" && id.Name != "factorized") {
			c.fail(o.Value, "family is full or factorized")
		}
		spec.Family = id.Name
	case "passes":
		only("ep")
		spec.Passes = c.optInt(o, 1)
	case "nonnegative_sites":
		only("ep")
		b, ok := o.Value.(*ast.BoolLit)
		if !ok {
			c.fail(o.Value, "nonnegative_sites is true or false")
		} else {
			spec.NonNegativeSites = b.Value
		}
	case "shards":
		only("ep")
		c.shardsOption(spec, o)
	case "samples":
		only("mcmc")
		spec.Samples = c.optInt(o, 1)
	case "burnin":
		only("mcmc")
		spec.Burnin = c.optInt(o, 0)
	case "chains":
		only("mcmc")
		spec.Chains = c.optInt(o, 1)
	default:
		msg := fmt.Sprintf("unknown infer option `%s`", o.Key.Name)
		if dym := didYouMean(o.Key.Name, inferOptions); dym != "" {
			msg += dym
		} else {
			msg += "; options are " + joinQuoted(inferOptions)
		}
		c.fail(o.Key, "%s", msg)
	}
}

// divergence parses kl, relaxed_kl(c = C), alpha(A), t(nu = NU).
func (c *compiler) divergence(e ast.Expr) infer.Divergence {
	a := c.specCall(e, stdlib.DivergenceName)
	switch a.b.Name {
	case "relaxed_kl":
		return infer.RelaxedKL{C: a.positive(0, 0)}
	case "alpha":
		x := a.positive(0, 0)
		if x > 1 {
			c.fail(a.at(0), "alpha needs 0 < a ≤ 1, got %s", fmtNum(x))
		}
		return infer.Alpha{A: x}
	case "t":
		return infer.T{Nu: a.positive(0, 0)}
	}
	return infer.KL{}
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

func (c *compiler) nonNeg(a *args, i, def int) int {
	n := a.integer(i, def)
	if n < 0 {
		c.fail(a.at(i), "%s must be ≥ 0, got %d", a.b.Params[i].Name, n)
	}
	return n
}
