package expect

import (
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
	"github.com/fg-infer/fg/stdlib"
)

// expectFixture is a hand-made compiled model (params, data, a graph with
// five step sites) and three results: ep, a relaxed ep and exact.
func expectFixture() (*compile.Model, []*infer.Result) {
	g := &graph.Graph{}
	g.AddLatent("w", graph.Real, 0, []int{2}, ast.NoPos)
	g.AddLatent("x", graph.Spin, 2, []int{3}, ast.NoPos)
	blk := &graph.Block{Name: "w", N: 2}
	for i := 0; i < 5; i++ {
		lab := "step(y[" + string(rune('0'+i)) + "])"
		fi := g.AddFactor(graph.Factor{Kind: factor.Step{}, Label: lab})
		blk.Sites = append(blk.Sites, graph.Site{Lik: factor.Step{Eps: 0.2}, Factor: fi, Label: lab})
	}
	m := &compile.Model{Fset: ast.NewFileSet(), Graph: g, FactorGraph: compile.BlockGraph(blk),
		Params: map[string]compile.Value{"eps": {Num: []float64{0.2}}},
		Data:   map[string]compile.Value{"y": {Shape: []int{5}, Num: []float64{-1, -1, 1, 1, -1}}}}
	x := infer.Variable{Name: "x", Shape: []int{3}, Discrete: true, States: []string{"-1", "+1"},
		Probs: [][]float64{{0.9, 0.1}, {0.4, 0.6}, {0.5, 0.5}}}
	ep := &infer.Result{Method: "ep", Label: "ep", Status: infer.Converged, Stats: infer.Stats{Iterations: 7},
		LogEvidence: -3.5, HasEvidence: true,
		Variables:   infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{0.75, -1}, Var: []float64{0.09, 0.16}}, x}...),
		Predictions: []infer.Prediction{{Name: "p", Shape: []int{2}, Mean: []float64{1, -1}, Var: []float64{1, 1}, Prob: []float64{0.8, 0.2}}}}
	rep := &infer.Result{Method: "ep", Label: "ep_relaxed_kl", Status: infer.IterationLimit, Stats: infer.Stats{Iterations: 200},
		Variables:  infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{0.52, -1.2}, Var: []float64{0.05, 0.2}}}...),
		Relaxation: []infer.Relaxation{{Factor: "step(y[4])", B: 1.9}}}
	exact := &infer.Result{Method: "exact", Label: "exact", Status: infer.Done, LogEvidence: -3.25, HasEvidence: true,
		Variables: infer.NewVariables([]infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{0.5, -1.25}, Var: []float64{0.04, 0.25}}}...)}
	return m, []*infer.Result{ep, rep, exact}
}

// evalAgainst evaluates src against the result labelled label.
func evalAgainst(t *testing.T, src, label string) (Result, bool) {
	t.Helper()
	m, rs := expectFixture()
	x, err := parser.ParseExprFrom(m.Fset, "", src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	m.Expects = []*compile.ExpectSpec{{Expr: x, For: label}}
	out := Eval(m, rs)
	if len(out) != 1 {
		t.Fatalf("%q: %d results", src, len(out))
	}
	return out[0], out[0].Pass
}

func TestExpectPassFail(t *testing.T) {
	cases := []struct {
		src, label string
		pass       bool
	}{
		{"mean(w[0]) == 0.75", "ep", true},
		{"abs(mean(w[0]) - exact.mean(w[0])) < 0.05", "ep_relaxed_kl", true}, // |0.52 − 0.5| = 0.02
		{"abs(mean(w[0]) - exact.mean(w[0])) < 0.05", "ep", false},           // 0.25
		{"sd(w[1]) == 0.4 and var(w[1]) == 0.16", "ep", true},
		{"prob(x[1]) == 0.6", "ep", true},
		{"prob(x[1], -1) == 0.4", "ep", true},
		{"prob(x[0], 1) < 0.5", "ep", true},
		{"logz == -3.5", "ep", true},
		{"abs(logz - exact.logz) == 0.25", "ep", true},
		{"iterations <= 10", "ep", true},
		{"converged", "ep", true},
		{"converged", "exact", true}, // done counts as converged
		{"not converged", "ep_relaxed_kl", true},
		{`status == "iteration_limit"`, "ep_relaxed_kl", true},
		{`b("step(y[4])") > 1`, "ep_relaxed_kl", true},
		{"b(4) > 1 and b(3) == 0", "ep_relaxed_kl", true},
		{"b(y[4]) == 1.9", "ep_relaxed_kl", true},
		{"b(y[4]) == 0", "ep", true},
		{"pred(p[0]) > 0.5 and pred(p[1]) < 0.5", "ep", true},
		{"y[4] == -1 and eps * 5 == 1", "ep", true},
		{"sum(mean(w)) == -0.25", "ep", true},
		{"max(mean(w)) == 0.75 and min(1, 2) == 1", "ep", true},
		{"dot(mean(w), [2, 1]) == 0.5", "ep", true},
		{"sqrt(4) == 2 and exp(0) == 1 and log(1) == 0 and 2^3 == 8", "ep", true},
		{"-2^2 == -4", "ep", true},
		{"1 < 2 or mean(w[9]) > 0", "ep", true}, // or short-circuits
		{"mean(w[0]) > 1", "ep", false},
	}
	for _, c := range cases {
		r, pass := evalAgainst(t, c.src, c.label)
		if r.Err != nil {
			t.Errorf("%s [%s]: error %v", c.src, c.label, r.Err)
			continue
		}
		if pass != c.pass {
			t.Errorf("%s [%s]: pass = %v, want %v (%s)", c.src, c.label, pass, c.pass, r.Observed)
		}
	}
}

func TestExpectErrors(t *testing.T) {
	cases := []struct{ src, label, want string }{
		{"mean(w[2]) > 0", "ep", "index 2 out of range 0..2"},
		{"mean(z[0]) > 0", "ep", "has no variable z"},
		{"mean(x[0]) > 0", "ep", "x is discrete"},
		{"prob(w[0]) > 0", "ep", "w is continuous"},
		{"prob(x[0], 3) > 0", "ep", "3 is not a state of x"},
		{"logz > 0", "ep_relaxed_kl", "has no log evidence"},
		{"exakt.mean(w[0]) > 0", "ep", "did you mean exact"},
		{"mean(w[0])", "ep", "expect needs a condition"},
		{`b("step(y[9])") == 0`, "ep", `no factor labelled "step(y[9])"`},
		{"b(7) == 0", "ep", "factor index 7 out of range"},
		{"epss > 0", "ep", "did you mean eps"},
		{"foo(1) > 0", "ep", "unknown function foo"},
		{`status > "a"`, "ep", "> is not defined"},
		{"mean(w[0.5]) > 0", "ep", "not an integer"},
		{"converged", "nosuch", `no result labelled "nosuch"`},
	}
	for _, c := range cases {
		r, pass := evalAgainst(t, c.src, c.label)
		if pass || r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%s: pass=%v err=%v, want error containing %q", c.src, pass, r.Err, c.want)
		}
	}
}

func TestExpectPositionsAndObserved(t *testing.T) {
	r, _ := evalAgainst(t, "abs(mean(w[0]) - exact.mean(w[0])) < 0.05", "ep")
	if r.Observed != "abs(mean(w[0]) - exact.mean(w[0])) = 0.25" {
		t.Errorf("observed = %q", r.Observed)
	}
	r, _ = evalAgainst(t, "1 + mean(w[7]) > 0", "ep")
	var e *ast.Error
	if r.Err == nil || !asASTError(r.Err, &e) || e.Pos.Column != 12 {
		t.Errorf("error %v should point at the index (column 12)", r.Err)
	}
}

func asASTError(err error, out **ast.Error) bool {
	e, ok := err.(*ast.Error)
	*out = e
	return ok
}

// TestExpectPerResult: an expect without `for` runs against every result,
// unless it reads no unqualified accessor.
func TestExpectPerResult(t *testing.T) {
	m, rs := expectFixture()
	parse := func(s string) ast.Expr { x, _ := parser.ParseExpr(s); return x }
	m.Expects = []*compile.ExpectSpec{{Expr: parse("mean(w[0]) > 0.5")}, {Expr: parse("exact.mean(w[0]) == 0.5")}}
	out := Eval(m, rs)
	if len(out) != 4 {
		t.Fatalf("%d results, want 3 + 1: %v", len(out), out)
	}
	wantPass := []bool{true, true, false, true}
	for i, r := range out {
		if r.Pass != wantPass[i] {
			t.Errorf("%d: %v", i, r)
		}
	}
	if out[3].Label != "" || !strings.HasPrefix(out[0].String(), "PASS") || !strings.Contains(out[2].String(), "FAIL") {
		t.Errorf("labels/strings: %v", out)
	}
}

// TestExpectNaNComparisons: every comparison with a NaN operand fails the
// expectation with a message naming the NaN side, including != (true for
// NaN under IEEE 754) and comparisons under `not` or `or`.
func TestExpectNaNComparisons(t *testing.T) {
	for _, c := range []struct{ src, nan string }{
		{"0/0 != 0/0", "`0 / 0` is NaN"},
		{"0/0 == 0/0", "`0 / 0` is NaN"},
		{"not (0/0 < 1)", "`0 / 0` is NaN"},
		{"1 >= 0/0 or true", "`0 / 0` is NaN"},
		{"log(-1) <= 0", "`log(-1)` is NaN"},
	} {
		r, pass := evalAgainst(t, c.src, "ep")
		if pass || r.Err == nil || !strings.Contains(r.Err.Error(), c.nan) {
			t.Errorf("%s: pass=%v err=%v, want a failure saying %s", c.src, pass, r.Err, c.nan)
		}
	}
}

func TestExpectNaNFails(t *testing.T) {
	m, rs := expectFixture()
	rs[0].Variables.At(0).Mean[0] = math.NaN()
	x, _ := parser.ParseExpr("mean(w[0]) < 1")
	m.Expects = []*compile.ExpectSpec{{Expr: x, For: "ep"}}
	if out := Eval(m, rs); out[0].Pass {
		t.Error("NaN < 1 must fail")
	}
}

// TestExpectCoversRegistry: every math builtin and accessor of the stdlib
// registry is available inside expect.
func TestExpectCoversRegistry(t *testing.T) {
	reducers := map[string]bool{"sum": true, "dot": true, "min": true, "max": true}
	for _, b := range stdlib.All() {
		switch b.Kind {
		case stdlib.Math:
			if elementwise[b.Name] == nil && !reducers[b.Name] {
				t.Errorf("math builtin %s not supported in expect", b.Name)
			}
		case stdlib.Accessor:
			if !bareAccessors[b.Name] && !calledAccessors[b.Name] {
				t.Errorf("accessor %s not supported in expect", b.Name)
			}
		}
	}
}

func TestEvalExpr(t *testing.T) {
	m, rs := expectFixture()
	x, _ := parser.ParseExpr("mean(w[0])")
	vs := EvalExpr(m, rs, nil, x)
	if len(vs) != 3 || vs[0].Label != "ep" || vs[0].Value != "0.75" || vs[2].Value != "0.5" {
		t.Errorf("%+v", vs)
	}
	x, _ = parser.ParseExpr("ep.logz - exact.logz")
	if vs := EvalExpr(m, rs, nil, x); len(vs) != 1 || vs[0].Label != "" || vs[0].Value != "-0.25" {
		t.Errorf("%+v", vs)
	}
	x, _ = parser.ParseExpr("logz")
	if vs := EvalExpr(m, rs, nil, x); vs[1].Err == nil || vs[0].Value != "-3.5" {
		t.Errorf("%+v", vs)
	}
}

// TestExpectSkipsResultsNotRun: an expect that names an infer line of the
// model which this run did not execute is skipped (neither pass nor fail);
// an unknown label is still an error.
func TestExpectSkipsResultsNotRun(t *testing.T) {
	m, rs := expectFixture()
	m.Infers = []*compile.InferSpec{{Label: "ep"}, {Label: "ep_relaxed_kl"}, {Label: "exact"}, {Label: "mcmc"}}
	for _, c := range []struct {
		src, label string
		skip       bool
	}{
		{"converged", "mcmc", true},
		{"abs(mean(w[0]) - mcmc.mean(w[0])) < 1", "ep", true},
		{"converged", "nosuch", false},
		{"abs(mean(w[0]) - nosuch.mean(w[0])) < 1", "ep", false},
	} {
		x, err := parser.ParseExpr(c.src)
		if err != nil {
			t.Fatal(err)
		}
		m.Expects = []*compile.ExpectSpec{{Expr: x, For: c.label}}
		es := Eval(m, rs)
		if len(es) != 1 || es[0].Skipped != c.skip || es[0].Pass || es[0].Err == nil {
			t.Errorf("%q for %s: %+v", c.src, c.label, es)
		}
		if Failed(es) == c.skip {
			t.Errorf("%q for %s: Failed = %v", c.src, c.label, Failed(es))
		}
		if c.skip && !strings.HasPrefix(es[0].String(), "SKIP") {
			t.Errorf("String() = %q", es[0].String())
		}
	}
}
