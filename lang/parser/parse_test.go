package parser

import (
	"strings"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

func TestParseStmts(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"model gpc", "(model gpc)"},
		{`import "lib/x.fg"`, `(import "lib/x.fg")`},
		{"data X: real[5, 2] = [[1, 2], [3, 4]]",
			"(data X (type real _ 5=5 2=2) (list (list 1=1 2=2) (list 3=3 4=4)))"},
		{"data y = csv(\"d.csv\", column = \"label\")",
			`(data y _ (call csv "d.csv" (column= "label")))`},
		{"data c: cat(3)[N] = z", "(data c (type cat 3=3 N) z)"},
		{"data s: spin = 1", "(data s (type spin _) 1=1)"},
		{"param eps = 0.2", "(param eps 0.2=0.2)"},
		{"latent w: real[2] ~ normal(0, 1)", "(latent w (type real _ 2=2) (call normal 0=0 1=1))"},
		{"latent x: spin[60]", "(latent x (type spin _ 60=60) _)"},
		{"latent b: bool", "(latent b (type bool _) _)"},
		{"y[i] ~ step(dot(X[i], w), eps)", "(~ (index y i) (call step (call dot (index X i) w) eps))"},
		{"factor ising(x[i], x[j], J)", "(factor (call ising (index x i) (index x j) J))"},
		{"factor exp(-beta * hinge(m))", "(factor (call exp (* (neg beta) (call hinge m))))"},
		{"for i in 0..5 { y[i] ~ probit(f[i]) }",
			"(for i (range 0=0 5=5) (~ (index y i) (call probit (index f i))))"},
		{"for i in 0..N-1 {}", "(for i (range 0=0 (- N 1=1)))"},
		{"for b in batches(N, 20) {\n  factor exp(x)\n  z ~ g()\n}",
			"(for b (call batches N 20=20) (factor (call exp x)) (~ z (call g)))"},
		{"for (i, j) in edges(G) { factor ising(x[i], x[j], J) }",
			"(for-tuple i j (call edges G) (factor (call ising (index x i) (index x j) J)))"},
		{"for (k, i, j) in edges(G) {\n for t in 0..2 { a ~ b() }\n}",
			"(for-tuple k i j (call edges G) (for t (range 0=0 2=2) (~ a (call b))))"},
		{"infer ep", "(infer ep _)"},
		{"infer ep as rep", "(infer ep rep)"},
		{"infer ep {}", "(infer{} ep _)"},
		{"infer ep { divergence = relaxed_kl(c = 20) }", "(infer{} ep _ (divergence= (call relaxed_kl (c= 20=20))))"},
		{"infer ep as a {\n  damping = 0.5\n  schedule = random(seed = 1),\n\n  tol = 1e-3, max_iter = 200,\n}",
			"(infer{} ep a (damping= 0.5=0.5) (schedule= (call random (seed= 1=1))) (tol= 1e-3=0.001) (max_iter= 200=200))"},
		{"infer bp { divergence = alpha(0.8); damping = 0.5 }", "(infer{} bp _ (divergence= (call alpha 0.8=0.8)) (damping= 0.5=0.5))"},
		{"predict ptest = predictive(f, Xtest)", "(predict ptest (call predictive f Xtest))"},
		{"expect converged", "(expect converged _)"},
		{"expect abs(mean(w[0]) - exact.mean(w[0])) < 0.05 for rep",
			"(expect (< (call abs (- (call mean (index w 0=0)) (call (sel exact mean) (index w 0=0)))) 0.05=0.05) rep)"},
		{"learn ell", "(learn (item ell _ _) _)"},
		{"learn ell in [0.1, 10], sf2 by evidence { max_iter = 50 }",
			"(learn{} (item ell 0.1=0.1 10=10) (item sf2 _ _) evidence (max_iter= 50=50))"},
		{"x ~ f(X[:, 1], X[0:10], X[1:], X[:2], X[:])",
			"(~ x (call f (index X (slice _ _) 1=1) (index X (slice 0=0 10=10)) (index X (slice 1=1 _)) (index X (slice _ 2=2)) (index X (slice _ _))))"},
		{"a ~ b(); c ~ d()\n\n\ne ~ f()", "(~ a (call b))\n(~ c (call d))\n(~ e (call f))"},
		{"param s = \"a\\tb\\\"\"", `(param s "a\tb\"")`},
		{"param m = [\n [1, 2],\n [3, 4],\n]", "(param m (list (list 1=1 2=2) (list 3=3 4=4)))"},
		{"param x = a +\n  b", "(param x (+ a b))"},
		{"param x = f(a,\n  b = 2\n)", "(param x (call f a (b= 2=2)))"},
		{"param t = true; param u = false", "(param t true)\n(param u false)"},
	} {
		f, err := ParseFile(ast.NewFileSet(), "t.fg", []byte(c.src))
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := fileS(f); got != c.want+"\n" {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestPrecedence(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"a + b * c", "(+ a (* b c))"},
		{"a * b + c", "(+ (* a b) c)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a / b / c", "(/ (/ a b) c)"},
		{"a @ b * c", "(* (@ a b) c)"},
		{"-x^2", "(neg (^ x 2=2))"},
		{"a^b^c", "(^ a (^ b c))"},
		{"a^-b", "(^ a (neg b))"},
		{"-a^-b^c", "(neg (^ a (neg (^ b c))))"},
		{"(-a)^2", "(^ (paren (neg a)) 2=2)"},
		{"- -a", "(neg (neg a))"},
		{"-a * b", "(* (neg a) b)"},
		{"a * -b", "(* a (neg b))"},
		{"2 * x^2", "(* 2=2 (^ x 2=2))"},
		{"a < b + c", "(< a (+ b c))"},
		{"a + b == c * d", "(== (+ a b) (* c d))"},
		{"not a == b", "(not (== a b))"},
		{"not a and b", "(and (not a) b)"},
		{"not not a", "(not (not a))"},
		{"a or b and c", "(or a (and b c))"},
		{"a and b or c and d", "(or (and a b) (and c d))"},
		{"a or b or c", "(or (or a b) c)"},
		{"a < b and b <= c", "(and (< a b) (<= b c))"},
		{"a != b or a >= b", "(or (!= a b) (>= a b))"},
		{"a > b", "(> a b)"},
		{"f(x)[0].m(1)", "(call (sel (index (call f x) 0=0) m) 1=1)"},
		{"-f(x)^2", "(neg (^ (call f x) 2=2))"},
		{"x[i]^2", "(^ (index x i) 2=2)"},
		{"a.b.c", "(sel (sel a b) c)"},
		{"[1, -2][0]", "(index (list 1=1 (neg 2=2)) 0=0)"},
		{"f(a == b, c = d)", "(call f (== a b) (c= d))"},
		{".5 + 1e-3 + 2.5E+2", "(+ (+ .5=0.5 1e-3=0.001) 2.5E+2=250)"},
		{"(a + b) * c", "(* (paren (+ a b)) c)"},
	} {
		x, err := ParseExpr(c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := sexpr(x); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	for _, src := range []string{"", "a +", "a b", "(a", "a)", "a < b < c", "x ~ y", "1e999", "a\nb", "$"} {
		if x, err := ParseExpr(src); err == nil {
			t.Errorf("%q: want an error, got %s", src, sexpr(x))
		}
	}
}

// TestLineEndings: CRLF line ends and a leading byte-order mark parse as
// plain LF text does.
func TestLineEndings(t *testing.T) {
	lf := "model m // c\ndata x = [1,\n  2]\nfor i in 0..2 {\n  x[i] ~ normal(0, 1)\n}\n"
	crlf := "\ufeff" + strings.ReplaceAll(lf, "\n", "\r\n")
	fa, fb := ast.NewFileSet(), ast.NewFileSet()
	a, err := ParseFile(fa, "lf.fg", []byte(lf))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseFile(fb, "crlf.fg", []byte(crlf))
	if err != nil {
		t.Fatal(err)
	}
	if fileS(a) != fileS(b) || commentTexts(a) != commentTexts(b) {
		t.Errorf("CRLF parse differs:\n%s\n%s", fileS(a), fileS(b))
	}
	if string(ast.Format(fa, a)) != string(ast.Format(fb, b)) {
		t.Errorf("CRLF format differs:\n%s\n%s", ast.Format(fa, a), ast.Format(fb, b))
	}
}
