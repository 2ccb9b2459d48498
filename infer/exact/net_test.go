package exact

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mathext"

	"github.com/fg-infer/fg/graph"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
)

func lg(x float64) float64 { l, _ := math.Lgamma(x); return l }

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
		t.Errorf("%s = %.15g, want %.15g (tolerance %g)", what, got, want, tol)
	}
}

func runNet(t *testing.T, n *graph.Net, algo string) *NetResult {
	t.Helper()
	r, err := RunNet(context.Background(), n, NetSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Algorithm != algo {
		t.Errorf("algorithm %q, want %q", r.Algorithm, algo)
	}
	return r
}

// TestNetConjugatePairs: each conjugate pair's posterior parameters and
// log evidence equal the closed forms written here (Bernardo & Smith
// 1994, App. A; Bishop 2006, §2.1–2.3) to 1e-9.
func TestNetConjugatePairs(t *testing.T) {
	t.Run("beta-bernoulli", func(t *testing.T) {
		var n graph.Net
		p := nt.Var(&n, "p", graph.Beta, 1)
		nt.Prior(&n, nt.Beta, p, []float64{2}, []float64{3})
		ys := []float64{1, 0, 1, 1, 0, 1, 1}
		for _, y := range ys {
			nt.Obs(&n, nt.Bernoulli, y, nt.V(p))
		}
		r := runNet(t, &n, "closed form")
		near(t, "a", r.Vars[p].Params[0], 7, 1e-9)
		near(t, "b", r.Vars[p].Params[1], 5, 1e-9)
		near(t, "log Z", r.LogZ, mathext.Lbeta(7, 5)-mathext.Lbeta(2, 3), 1e-9)
		near(t, "mean", r.Vars[p].Mean[0], 7.0/12, 1e-9)
		near(t, "var", r.Vars[p].Var[0], 35.0/(144*13), 1e-9)
	})
	t.Run("beta-binomial", func(t *testing.T) {
		var n graph.Net
		p := nt.Var(&n, "p", graph.Beta, 1)
		nt.Prior(&n, nt.Beta, p, []float64{1.5}, []float64{2.5})
		want, s, f := 0.0, 0.0, 0.0
		for _, y := range []float64{3, 7, 4} {
			nt.Obs(&n, nt.Binomial, y, nt.Data(10), nt.V(p))
			want += lg(11) - lg(y+1) - lg(11-y)
			s, f = s+y, f+10-y
		}
		want += mathext.Lbeta(1.5+s, 2.5+f) - mathext.Lbeta(1.5, 2.5)
		r := runNet(t, &n, "closed form")
		near(t, "a", r.Vars[p].Params[0], 1.5+s, 1e-9)
		near(t, "b", r.Vars[p].Params[1], 2.5+f, 1e-9)
		near(t, "log Z", r.LogZ, want, 1e-9)
	})
	t.Run("gamma-poisson", func(t *testing.T) {
		var n graph.Net
		l := nt.Var(&n, "rate", graph.Gamma, 1)
		a, b := 2.0, 1.0
		nt.Prior(&n, nt.Gamma, l, []float64{a}, []float64{b})
		ys := []float64{3, 1, 4, 1, 5}
		S, want := 0.0, 0.0
		for _, y := range ys {
			nt.Obs(&n, nt.Poisson, y, nt.V(l))
			S += y
			want -= lg(y + 1)
		}
		an, bn := a+S, b+float64(len(ys))
		want += a*math.Log(b) - lg(a) + lg(an) - an*math.Log(bn)
		r := runNet(t, &n, "closed form")
		near(t, "shape", r.Vars[l].Params[0], an, 1e-9)
		near(t, "rate", r.Vars[l].Params[1], bn, 1e-9)
		near(t, "log Z", r.LogZ, want, 1e-9)
		near(t, "mean", r.Vars[l].Mean[0], an/bn, 1e-9)
	})
	ys := []float64{0.3, -1.2, 2.5, 1.1, 0.7, -0.4}
	m := 0.5
	ss := 0.0
	for _, y := range ys {
		ss += (y - m) * (y - m)
	}
	nn := float64(len(ys))
	normalGamma := func(a, b float64) (float64, float64, float64) {
		an, bn := a+nn/2, b+ss/2
		return an, bn, -nn/2*math.Log(2*math.Pi) + a*math.Log(b) - lg(a) + lg(an) - an*math.Log(bn)
	}
	t.Run("gamma-normal precision", func(t *testing.T) {
		var n graph.Net
		tau := nt.Var(&n, "tau", graph.Gamma, 1)
		nt.Prior(&n, nt.Gamma, tau, []float64{3}, []float64{2})
		for _, y := range ys {
			nt.Obs(&n, nt.NormalPrec, y, nt.Data(m), nt.V(tau))
		}
		an, bn, want := normalGamma(3, 2)
		r := runNet(t, &n, "closed form")
		near(t, "shape", r.Vars[tau].Params[0], an, 1e-9)
		near(t, "rate", r.Vars[tau].Params[1], bn, 1e-9)
		near(t, "log Z", r.LogZ, want, 1e-9)
	})
	t.Run("inv_gamma-normal variance", func(t *testing.T) {
		var n graph.Net
		s2 := nt.Var(&n, "s2", graph.InvGamma, 1)
		nt.Prior(&n, nt.InvGamma, s2, []float64{3}, []float64{2})
		for _, y := range ys {
			nt.Obs(&n, nt.Normal, y, nt.Data(m), nt.V(s2))
		}
		an, bn, want := normalGamma(3, 2)
		r := runNet(t, &n, "closed form")
		near(t, "shape", r.Vars[s2].Params[0], an, 1e-9)
		near(t, "scale", r.Vars[s2].Params[1], bn, 1e-9)
		near(t, "log Z", r.LogZ, want, 1e-9)
		near(t, "mean", r.Vars[s2].Mean[0], bn/(an-1), 1e-9)
	})
	t.Run("dirichlet-categorical", func(t *testing.T) {
		var n graph.Net
		alpha := []float64{1, 2, 3}
		w := nt.Var(&n, "w", graph.Dirichlet, 3)
		nt.Prior(&n, nt.Dirichlet, w, alpha)
		counts := make([]float64, 3)
		for _, y := range []float64{0, 2, 2, 1, 2} {
			nt.Obs(&n, nt.Categorical, y, nt.V(w))
			counts[int(y)]++
		}
		want := lg(6) - lg(6+5)
		r := runNet(t, &n, "closed form")
		for k, a := range alpha {
			want += lg(a+counts[k]) - lg(a)
			near(t, "alpha", r.Vars[w].Params[k], a+counts[k], 1e-9)
			near(t, "mean", r.Vars[w].Mean[k], (a+counts[k])/11, 1e-9)
		}
		near(t, "log Z", r.LogZ, want, 1e-9)
	})
}
