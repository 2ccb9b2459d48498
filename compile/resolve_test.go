package compile

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
)

// describeUses renders the resolution of every name use, in source order:
// "NAME LINE:COL -> KIND NAME LINE:COL" (the declaration), or "-> none".
// A called builtin (a callee that names no declaration, never undefined)
// is left out.
func (a *analysis) describeUses() []string {
	ids := make([]*ast.Ident, 0, len(a.uses))
	for id, sym := range a.uses {
		if _, undefined := a.unresolved[id]; sym != nil || undefined {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y *ast.Ident) int {
		p, q := a.fset.Position(x.Pos()), a.fset.Position(y.Pos())
		if c := strings.Compare(p.Filename, q.Filename); c != 0 {
			return c
		}
		if p.Line != q.Line {
			return p.Line - q.Line
		}
		return p.Column - q.Column
	})
	var out []string
	for _, id := range ids {
		p := a.fset.Position(id.Pos())
		line := fmt.Sprintf("%s %s:%d:%d -> ", id.Name, p.Filename, p.Line, p.Column)
		if sym := a.uses[id]; sym != nil {
			q := a.fset.Position(sym.pos)
			line += fmt.Sprintf("%s %s %s:%d:%d", bindNames[sym.kind], sym.name, q.Filename, q.Line, q.Column)
		} else {
			line += "none"
		}
		out = append(out, line)
	}
	return out
}

// TestResolve: every name an expression uses resolves to the declaration
// in scope — a plate variable (innermost first), else the first
// declaration of a global declared before the use (a latent's prior after
// its own declaration) — or to none: a use before the declaration, a
// typo, a builtin used as a value. A called function resolves by the
// same rule (a call of a declared name, which lowering refuses); named-
// argument keys, option keys, labels, learn items and expect statements
// are not name uses here.
func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"globals in declaration order", `data A = B + 1
data B = 2
param s = B
latent w: real[B] ~ normal(w, s)
data C = C`, []string{
			"B m.fg:1:10 -> none",
			"B m.fg:3:11 -> data B m.fg:2:6",
			"B m.fg:4:16 -> data B m.fg:2:6",
			"w m.fg:4:28 -> latent w m.fg:4:8",
			"s m.fg:4:31 -> param s m.fg:3:7",
			"C m.fg:5:10 -> none",
		}},
		{"a redeclaration leaves the first", `data x = 1
param x = x
data y = x`, []string{
			"x m.fg:2:11 -> data x m.fg:1:6",
			"x m.fg:3:10 -> data x m.fg:1:6",
		}},
		{"plates", `data N = 2
latent w: real[N]
for i in 0..N {
  w[i] ~ normal(0, 1)
  for j in i..N { factor exp(w[j] - w[ii]) }
}
factor exp(w[i])`, []string{
			"N m.fg:2:16 -> data N m.fg:1:6",
			"N m.fg:3:13 -> data N m.fg:1:6",
			"w m.fg:4:3 -> latent w m.fg:2:8",
			"i m.fg:4:5 -> loop variable i m.fg:3:5",
			"i m.fg:5:12 -> loop variable i m.fg:3:5",
			"N m.fg:5:15 -> data N m.fg:1:6",
			"w m.fg:5:30 -> latent w m.fg:2:8",
			"j m.fg:5:32 -> loop variable j m.fg:5:7",
			"w m.fg:5:37 -> latent w m.fg:2:8",
			"ii m.fg:5:39 -> none",
			"w m.fg:7:12 -> latent w m.fg:2:8",
			"i m.fg:7:14 -> none",
		}},
		{"names that are not uses", `data X = csv("x.csv", column = col)
param s = 1
latent w: real[2] ~ normal(0, s)
X[0] ~ probit(dot(w, X[1]), kind = k)
infer ep as first { divergence = kl, max_iter = s }
predict p = w
learn s in [0, hi] { rate = s }
expect mean(w[0]) > s for first`, []string{
			"col m.fg:1:32 -> none",
			"s m.fg:3:31 -> param s m.fg:2:7",
			"X m.fg:4:1 -> data X m.fg:1:6",
			"w m.fg:4:19 -> latent w m.fg:3:8",
			"X m.fg:4:22 -> data X m.fg:1:6",
			"k m.fg:4:36 -> none",
			"kl m.fg:5:34 -> none",
			"s m.fg:5:49 -> param s m.fg:2:7",
			"w m.fg:6:13 -> latent w m.fg:3:8",
			"hi m.fg:7:16 -> none",
			"s m.fg:7:29 -> param s m.fg:2:7",
		}},
		{"called names", `data f = 1
data g = f(2) + h(3)
for i in 0..2 { factor exp(i(0)) }
data h = 1`, []string{
			"f m.fg:2:10 -> data f m.fg:1:6",
			"i m.fg:3:28 -> loop variable i m.fg:3:5",
		}},
		{"result lines see every global", `infer ep { max_iter = n }
data n = 3`, []string{
			"n m.fg:1:23 -> data n m.fg:2:6",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			equalLines(t, mustAnalyse(t, fstest.MapFS{"m.fg": {Data: []byte(tc.src)}}).describeUses(), tc.want)
		})
	}
}

// TestResolveImports: an imported file's names are declared where its
// import stands, and its expressions see the globals declared before.
func TestResolveImports(t *testing.T) {
	a := mustAnalyse(t, fstest.MapFS{
		"m.fg":   {Data: []byte("data a = b\nimport \"lib.fg\"\ndata c = b + d")},
		"lib.fg": {Data: []byte("data b = a\ndata d = c")},
	})
	want := []string{
		"a lib.fg:1:10 -> data a m.fg:1:6",
		"c lib.fg:2:10 -> none",
		"b m.fg:1:10 -> none",
		"b m.fg:3:10 -> data b lib.fg:1:6",
		"d m.fg:3:14 -> data d lib.fg:2:6",
	}
	equalLines(t, a.describeUses(), want)
}

// TestResolveOutsideFiles: an expression that is not in the files is
// resolved by the same rule where it stands — a --set value at its
// param's declaration, an added infer line against the model's params.
func TestResolveOutsideFiles(t *testing.T) {
	a := mustAnalyse(t, fstest.MapFS{"m.fg": {Data: []byte("param a = 1\nparam p = 2\nparam z = 3")}})
	p := a.symbols[1]
	var pid *ast.Ident
	for id, sym := range a.byIdent {
		if sym == p {
			pid = id
		}
	}
	x, err := parser.ParseExprFrom(a.fset, "", "a + p + z")
	if err != nil {
		t.Fatal(err)
	}
	a.resolveBefore(x, pid)
	var got []string
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			got = append(got, fmt.Sprintf("%s -> %v", id.Name, a.uses[id] != nil))
		}
		return true
	})
	if want := []string{"a -> true", "p -> false", "z -> false"}; !slices.Equal(got, want) {
		t.Errorf("--set p = a + p + z: got %v, want %v", got, want)
	}

	stmts, perr := parseStmts(a.fset, "--method", []byte("infer ep { max_iter = n, damping = eps }"))
	if perr != nil {
		t.Fatal(perr)
	}
	s := stmts[0].(*ast.InferStmt)
	m := methodAnalysis(a.fset, []string{"n"}, s)
	if sym := m.uses[s.Options[0].Value.(*ast.Ident)]; sym == nil || sym.kind != bParam || sym.name != "n" {
		t.Errorf("--method max_iter = n: resolved to %v, want param n", sym)
	}
	if sym := m.uses[s.Options[1].Value.(*ast.Ident)]; sym != nil {
		t.Errorf("--method damping = eps: resolved to %v, want none", sym)
	}
}

// TestUndefinedMessage: the message of a name that resolved to none names
// a builtin's misuse, or suggests a name in scope whose declaration
// lowered — a plate variable, a global before the use — or a builtin.
func TestUndefinedMessage(t *testing.T) {
	a := mustAnalyse(t, fstest.MapFS{"m.fg": {Data: []byte(`data alpha = 1
data bravo = 2
for i in 0..2 { factor exp(alphx + bravx + ii + exp + normal + charlie) }
data charlie = 3`)}})
	lowered := func(sym *symbol) bool { return sym.name != "bravo" } // bravo failed on its value
	got := map[string]string{}
	for id, sym := range a.uses {
		if sym == nil {
			got[id.Name] = a.undefined(id, lowered)
		}
	}
	want := map[string]string{
		"alphx":   "undefined: `alphx`; did you mean `alpha`?",
		"bravx":   "undefined: `bravx`",
		"ii":      "undefined: `ii`; did you mean `i`?",
		"exp":     "`exp` is a builtin function; call it: exp(x)",
		"normal":  "`normal` is a distribution and cannot be used here",
		"charlie": "undefined: `charlie`",
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: got %q, want %q", n, got[n], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("unresolved %v, want %d names", got, len(want))
	}
}
