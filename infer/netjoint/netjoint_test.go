package netjoint_test

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/netjoint"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
)

// TestTransforms: ToU inverts FromU, and FromU's log Jacobian equals the
// log |det| of a central-difference Jacobian (1e-7) on every family.
func TestTransforms(t *testing.T) {
	cases := []struct {
		fam graph.Family
		u   []float64
	}{
		{graph.Gaussian, []float64{0.7}}, {graph.Gamma, []float64{-1.3}}, {graph.InvGamma, []float64{2.1}},
		{graph.Beta, []float64{0.4}}, {graph.Dirichlet, []float64{0.3, -1.1}}, {graph.Dirichlet, []float64{1.5, -0.2, 0.6}},
	}
	for _, c := range cases {
		d := len(c.u)
		w := d
		if c.fam == graph.Dirichlet {
			w = d + 1
		}
		th := make([]float64, w)
		logJ := netjoint.FromU(c.fam, c.u, th)
		back := make([]float64, d)
		netjoint.ToU(c.fam, th, back)
		for k := range back {
			if !scalar.EqualWithinAbs(back[k], c.u[k], 1e-12) {
				t.Errorf("%v: ToU(FromU(%v)) = %v", c.fam, c.u, back)
			}
		}
		jac := mat.NewDense(d, d, nil)
		const h = 1e-6
		up, dn := make([]float64, w), make([]float64, w)
		for k := 0; k < d; k++ {
			u := append([]float64(nil), c.u...)
			u[k] += h
			netjoint.FromU(c.fam, u, up)
			u[k] -= 2 * h
			netjoint.FromU(c.fam, u, dn)
			for i := 0; i < d; i++ { // the first d coordinates of θ
				jac.Set(i, k, (up[i]-dn[i])/(2*h))
			}
		}
		if got := math.Log(math.Abs(mat.Det(jac))); !scalar.EqualWithinAbs(got, logJ, 1e-7) {
			t.Errorf("%v at %v: log Jacobian %v, numerical %v", c.fam, c.u, logJ, got)
		}
	}
}

// logistic is a test kind that no family is conjugate to: log σ(x).
type logistic struct{}

func (logistic) Name() string { return "logistic" }
func (logistic) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return -math.Log1p(math.Exp(-vals[0][0]))
}

// TestFits: the fits recover the conjugate updates written here (Beta
// counts; a Gaussian's precision and linear term from an affine mean)
// and refuse what is not conjugate (a logistic factor on a Gaussian, a
// normal coupling its mean and precision).
func TestFits(t *testing.T) {
	var n graph.Net
	p := nt.Var(&n, "p", graph.Beta, 1)
	fb := []int{nt.Factor(&n, nt.Beta, p, nt.D("a", 2), nt.D("b", 3))}
	for _, y := range []float64{1, 1, 0} {
		fb = append(fb, nt.Obs(&n, nt.Bernoulli, y, nt.V("p", p)))
	}
	x1 := nt.Var(&n, "x1", graph.Gaussian, 1)
	x2 := nt.Var(&n, "x2", graph.Gaussian, 1)
	aff := graph.Edge{Name: "mean", Vars: []int{x1, x2}, Coefs: []float64{2, -1}, Const: 1}
	fq := nt.Obs(&n, nt.Normal, 0.5, aff, nt.D("var", 0.25))
	fl := n.AddFactor(graph.NetFactor{Kind: logistic{}, Edges: []graph.Edge{graph.VarEdge("x", x1)}, Label: "logistic"})
	tau := nt.Var(&n, "tau", graph.Gamma, 1)
	fc := nt.Obs(&n, nt.Normal, 0.5, nt.V("mean", x1), nt.V("prec", tau))
	j, err := netjoint.New(&n)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, j.Len())
	j.Reference(x)
	eta, _, err := j.FitFamily(fb, p, x)
	if err != nil || !scalar.EqualWithinAbs(eta[0], 1+2, 1e-10) || !scalar.EqualWithinAbs(eta[1], 2+1, 1e-10) {
		t.Errorf("beta–bernoulli: η = %v (%v), want [3 3]", eta, err)
	}
	// N(0.5; 2x1 − x2 + 1, 0.25): −2(2x1 − x2 + 0.5)² − ½ log(2π·0.25)
	P, b, c, err := j.FitQuadratic([]int{fq}, []int{x1, x2}, x)
	wantP, wantB := []float64{16, -8, -8, 4}, []float64{-4, 2}
	for i := range wantP {
		if err != nil || !scalar.EqualWithinAbs(P[i], wantP[i], 1e-9) {
			t.Errorf("P = %v (%v), want %v", P, err, wantP)
			break
		}
	}
	if !scalar.EqualWithinAbs(b[0], wantB[0], 1e-9) || !scalar.EqualWithinAbs(b[1], wantB[1], 1e-9) ||
		!scalar.EqualWithinAbs(c, -0.5-0.5*math.Log(2*math.Pi*0.25), 1e-9) {
		t.Errorf("b = %v, c = %v", b, c)
	}
	if _, _, _, err := j.FitQuadratic([]int{fl}, []int{x1}, x); !errors.Is(err, netjoint.ErrNotConjugate) {
		t.Errorf("logistic factor: err = %v, want ErrNotConjugate", err)
	}
	free := make([]bool, len(n.Vars))
	free[x1], free[tau] = true, true
	if _, err := j.FitFactor(fc, free, x); !errors.Is(err, netjoint.ErrNotConjugate) {
		t.Errorf("normal(mean = x1, prec = tau), both free: err = %v, want ErrNotConjugate", err)
	}
	free[x1] = false
	if c, err := j.FitFactor(fc, free, x); err != nil || c.Var != tau {
		t.Errorf("normal in tau given x1: %+v, %v", c, err)
	}
}
