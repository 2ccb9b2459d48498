package graph

import (
	"bytes"
	"strings"
	"testing"
)

type testKind string

func (k testKind) Name() string { return string(k) }

// TestNetDumpAndDOT: the text dump writes every variable with its family
// and every edge in its form (variable, affine, data, selection), and the
// DOT labels variables with their families and dashes a selector's edge.
func TestNetDumpAndDOT(t *testing.T) {
	var n Net
	w := n.AddVar(NetVar{Name: "w", Family: Dirichlet, Dim: 2})
	mu0 := n.AddVar(NetVar{Name: "mu[0]", Family: Gaussian})
	mu1 := n.AddVar(NetVar{Name: "mu[1]", Family: Gaussian})
	z := n.AddVar(NetVar{Name: "z", Family: Discrete, Dim: 2})
	n.AddFactor(NetFactor{Kind: testKind("categorical"), Label: "categorical(z)",
		Edges: []Edge{VarEdge("x", z), VarEdge("p", w)}})
	n.AddFactor(NetFactor{Kind: testKind("normal"), Label: "normal(y)", Observed: true, Y: []float64{0.5},
		Edges: []Edge{{Name: "mean", Selected: true, Sel: z, Branches: []Edge{VarEdge("mean", mu0),
			{Name: "mean", Vars: []int{mu0, mu1}, Coefs: []float64{2, -1}, Const: 1}}}, DataEdge("var", 0.25)}})
	var b bytes.Buffer
	if err := DumpNet(&b, &n); err != nil {
		t.Fatal(err)
	}
	want := `net vars=4 factors=2
var 0 w dirichlet dim=2 latent=0 elem=0
var 1 mu[0] gaussian dim=1 latent=0 elem=0
var 2 mu[1] gaussian dim=1 latent=0 elem=0
var 3 z discrete dim=2 latent=0 elem=0
factor 0 categorical "categorical(z)" at 0:0 x=z p=w
factor 1 normal "normal(y)" at 0:0 y=0.5 mean=z?[mu[0] | 2*mu[0] + -1*mu[1] + 1] var=0.25
`
	if b.String() != want {
		t.Errorf("dump:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := NetDOT(&b, &n); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`label="w : dirichlet(2)"`, `label="z : discrete(2)"`, `label="mu[0] : gaussian"`,
		`label="normal(y)"`, "f1 -- v3 [style=dashed];", "f1 -- v1;", "f1 -- v2;", "f0 -- v0;", "f0 -- v3;"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("DOT lacks %q:\n%s", s, b.String())
		}
	}
}
