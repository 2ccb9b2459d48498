package infer

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSiteRuleOnlyInFamilies fails when an engine package (a Go file
// under infer/, tests excepted) writes the EP site update or its damping
// out itself instead of calling families/site.go (families.TiltedSite,
// families.SiteUpdate, families.Damped, families.Damp): a damping step
// (1 − d)·old + d·new or old + d·(new − old), or the tilted-variance
// ratio 1 + v·d2 of the site precision −d2 / (u (1 + v d2)). The scan is
// syntactic (siteRuleCopies): it finds these forms as written, whatever
// the names, not every algebraic rewriting of them.
func TestSiteRuleOnlyInFamilies(t *testing.T) {
	walkGo(t, func(rel, path string) {
		if !strings.HasPrefix(rel, "infer/") {
			return
		}
		for _, c := range siteRuleCopies(t, path) {
			if siteRuleAllowed[rel+": "+c.text] != "" {
				continue
			}
			t.Errorf("%s:%d: %s: call the shared site update of families/site.go (Damped, Damp, TiltedSite, SiteUpdate)", rel, c.line, c.text)
		}
	})
}

// siteRuleAllowed are expressions (FILE: TEXT) of the scanned forms that
// are not a site update or a damping step.
var siteRuleAllowed = map[string]string{
	"infer/fgraph/relaxed.go: 1 + lam*D2":                    "relaxed EP's cost: log(1 + v D2) of the tilted mixture against its projection",
	"infer/tep/moments.go: e0 + (e1-e0)*m0":                  "the normaliser ε^p + ((1−ε)^p − ε^p)·(tail mass) of a step likelihood's tilted Student-t",
	"infer/mcmc/slice.go: lo + (hi-lo)*rng.Float64()":        "a uniform draw on [lo, hi)",
	"infer/mcmc/net_chain.go: lo + (hi-lo)*ch.rng.Float64()": "a uniform draw on [lo, hi)",
}

// TestSiteRuleScannerFinds checks the scanner on the forms the engines
// used to write (and must find) and on forms it must leave alone.
func TestSiteRuleScannerFinds(t *testing.T) {
	src := `package p
func f(old, new, d, v, vc, d2, m, d1, u, s, a float64, x []float64, r struct{ damping float64 }) {
	_ = (1-d)*old + d*new
	_ = d*new + (1-d)*old
	_ = (1-r.damping)*x[0] + r.damping*x[1]
	_ = old + d*(new-old)
	_ = x[0] + d*(x[1]-x[0])
	_ = -d2 / (u * (1 + vc*d2))
	_ = 1 + s*s*a*a*d2
	_ = (1-d)*old + s*new     // not a damping: different weights
	_ = old + d*(new-m)       // not a damping: m is not old
	_ = v + v*v*d2            // the tilted variance, not the site ratio
	_ = 1 + v*d1
}`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	got := siteRuleCopies(t, path)
	wantLines := []int{3, 4, 5, 6, 7, 8, 9}
	if len(got) != len(wantLines) {
		t.Fatalf("found %v, want lines %v", got, wantLines)
	}
	for i, c := range got {
		if c.line != wantLines[i] {
			t.Errorf("finding %d: %s at line %d, want line %d", i, c.text, c.line, wantLines[i])
		}
	}
}

// siteRuleCopies returns the damping steps and site-update ratios written
// out in a Go file (see TestSiteRuleOnlyInFamilies).
func siteRuleCopies(t *testing.T, path string) []comparison {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	src := func(e ast.Expr) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, e)
		return b.String()
	}
	var out []comparison
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD {
			return true
		}
		if isConvexStep(b, src) || isIncrementStep(b, src) || isSiteRatio(b) {
			out = append(out, comparison{text: src(b), line: fset.Position(b.Pos()).Line})
			return false
		}
		return true
	})
	return out
}

// isConvexStep reports whether b is (1 − d)·x + d·y (operands of either
// sum or product in any order).
func isConvexStep(b *ast.BinaryExpr, src func(ast.Expr) string) bool {
	for _, p := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		d, ok := oneMinusWeight(p[0])
		if ok && hasFactor(p[1], d, src) {
			return true
		}
	}
	return false
}

// oneMinusWeight returns d when e is (1 − d)·x or x·(1 − d).
func oneMinusWeight(e ast.Expr) (ast.Expr, bool) {
	m, ok := unparen(e).(*ast.BinaryExpr)
	if !ok || m.Op != token.MUL {
		return nil, false
	}
	for _, f := range []ast.Expr{m.X, m.Y} {
		if s, ok := unparen(f).(*ast.BinaryExpr); ok && s.Op == token.SUB && isOne(s.X) {
			return s.Y, true
		}
	}
	return nil, false
}

// hasFactor reports whether e is a product with a factor spelled as d.
func hasFactor(e, d ast.Expr, src func(ast.Expr) string) bool {
	m, ok := unparen(e).(*ast.BinaryExpr)
	return ok && m.Op == token.MUL && (src(unparen(m.X)) == src(unparen(d)) || src(unparen(m.Y)) == src(unparen(d)))
}

// isIncrementStep reports whether b is x + d·(y − x) (either order).
func isIncrementStep(b *ast.BinaryExpr, src func(ast.Expr) string) bool {
	for _, p := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		m, ok := unparen(p[1]).(*ast.BinaryExpr)
		if !ok || m.Op != token.MUL {
			continue
		}
		for _, f := range []ast.Expr{m.X, m.Y} {
			if s, ok := unparen(f).(*ast.BinaryExpr); ok && s.Op == token.SUB && src(unparen(s.Y)) == src(unparen(p[0])) {
				return true
			}
		}
	}
	return false
}

// isSiteRatio reports whether b is 1 + (a product with a factor named d2).
func isSiteRatio(b *ast.BinaryExpr) bool {
	for _, p := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if isOne(p[0]) && productHasD2(p[1]) {
			return true
		}
	}
	return false
}

func productHasD2(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.Ident:
		return strings.EqualFold(e.Name, "d2")
	case *ast.BinaryExpr:
		return e.Op == token.MUL && (productHasD2(e.X) || productHasD2(e.Y))
	}
	return false
}

func isOne(e ast.Expr) bool {
	l, ok := unparen(e).(*ast.BasicLit)
	return ok && (l.Value == "1" || l.Value == "1.0")
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
