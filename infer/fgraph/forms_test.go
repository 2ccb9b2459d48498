package fgraph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/ep"
)

// affineGraphs builds the same factors twice: read in place from
// graph.Affines columns (AddAffines, AddSites) and added one at a time
// (AddGaussian, AddSite). The model is a random walk x_t | x_{t−1} with
// stretches of other arities (a second parent x_{t−2}), coefficients that
// follow rules, vary or change every few steps (short stretches, held
// decoded), observations of x_t or x_t − x_{t−1}, and probit sites.
func affineGraphs(rng *rand.Rand, T int) (inPlace, oneByOne *Graph) {
	var prior, obs, probit graph.Affines
	prior.Add(graph.Affine{Vars: []int{0}, Coefs: []float64{1}, Var: 4})
	for t := 1; t < T; t++ {
		a := graph.Affine{Vars: []int{t, t - 1}, Coefs: []float64{1, -0.9}, Var: 1}
		switch {
		case t%100 > 60 && t >= 2:
			a.Vars, a.Coefs = append(a.Vars, t-2), append(a.Coefs, 0.3) // arity 3
		case t%100 > 40:
			a.Coefs[1] = -0.5 - 0.01*float64(t%7) // changes every step
		case t%100 > 30:
			a.Const = float64(t/3) * 0.25 // changes every third step
			a.Var = 0.5
		}
		prior.Add(a)
	}
	for t := 0; t < T; t++ {
		switch {
		case t%50 < 10 && t > 0:
			obs.Add(graph.Affine{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}, Y: rng.NormFloat64()})
		default:
			obs.Add(graph.Affine{Vars: []int{t}, Coefs: []float64{1}, Y: rng.NormFloat64(), Const: -0.1 * float64(t%3)})
		}
		if t%3 == 0 {
			probit.Add(graph.Affine{Vars: []int{t}, Coefs: []float64{0.5 + float64(t%5)}, Y: float64(1 - 2*(t%2))})
		}
	}
	liks := make([]ep.Likelihood, probit.Len())
	for i := range liks {
		liks[i] = ep.Probit{}
	}
	inPlace, oneByOne = NewGraph(T), NewGraph(T)
	inPlace.AddAffines(&prior, 0, prior.Len(), 0)
	inPlace.AddAffines(&obs, 0, obs.Len()/2, 2)
	inPlace.AddSites(&probit, 0, probit.Len(), liks)
	inPlace.AddAffines(&obs, obs.Len()/2, obs.Len(), 2)
	for _, f := range prior.All() {
		oneByOne.AddGaussian(f.Vars, f.Coefs, f.Const, f.Y, f.Var)
	}
	for k, f := range obs.All() {
		if k == obs.Len()/2 {
			for _, s := range probit.All() {
				oneByOne.AddSite(ep.Probit{}, s.Y, s.Vars, s.Coefs, s.Const)
			}
		}
		oneByOne.AddGaussian(f.Vars, f.Coefs, f.Const, f.Y, 2)
	}
	return inPlace, oneByOne
}

// TestAffinesReadInPlace checks that factors read in place from a model's
// columns (runs of views, short stretches decoded) are the factors added
// one at a time: the same forms factor by factor, and the same posterior
// and log Z bit for bit under both families and both sweeps, loopy
// (arity 3) and not.
func TestAffinesReadInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a, b := affineGraphs(rng, 2000)
	if a.NumFactors() != b.NumFactors() || a.numEdges() != b.numEdges() {
		t.Fatalf("%d factors, %d edges read in place; %d, %d added", a.NumFactors(), a.numEdges(), b.NumFactors(), b.numEdges())
	}
	views, decodedRuns := 0, 0
	for k := range a.runs {
		if a.runs[k].starts == nil {
			views++
		} else {
			decodedRuns++
		}
	}
	if views < 20 || decodedRuns < 20 {
		t.Fatalf("%d runs of views and %d decoded: the model does not exercise both", views, decodedRuns)
	}
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	for k := range a.NumFactors() {
		fa, fb := a.fac(k), b.fac(k)
		if fa.lo != fb.lo || fa.hi != fb.hi || !slices.Equal(fa.vars(nil), fb.vars(nil)) || !slices.Equal(fa.coefs(nil), fb.coefs(nil)) ||
			!same(fa.c(), fb.c()) || !same(fa.y(), fb.y()) || !same(fa.variance(), fb.variance()) || fa.site() != fb.site() {
			t.Fatalf("factor %d differs: %v %v c %v y %v var %v site %d; added %v %v c %v y %v var %v site %d", k,
				fa.vars(nil), fa.coefs(nil), fa.c(), fa.y(), fa.variance(), fa.site(), fb.vars(nil), fb.coefs(nil), fb.c(), fb.y(), fb.variance(), fb.site())
		}
	}
	for _, s := range []Settings{{Family: Full}, {Family: Factorized}} {
		ra, errA := Run(context.Background(), a, s)
		rb, errB := Run(context.Background(), b, s)
		if errA != nil || errB != nil {
			t.Fatalf("family %v: %v, %v", s.Family, errA, errB)
		}
		if ra.Status != rb.Status || ra.Stats.Iterations != rb.Stats.Iterations || !same(ra.LogZ, rb.LogZ) {
			t.Fatalf("family %v: %v after %d sweeps, log Z %v; added: %v after %d, %v", s.Family, ra.Status, ra.Stats.Iterations, ra.LogZ, rb.Status, rb.Stats.Iterations, rb.LogZ)
		}
		for i := range ra.Mean {
			if !same(ra.Mean[i], rb.Mean[i]) || !same(ra.Var[i], rb.Var[i]) {
				t.Fatalf("family %v: x[%d] %v, %v; added %v, %v", s.Family, i, ra.Mean[i], ra.Var[i], rb.Mean[i], rb.Var[i])
			}
		}
	}
}

// TestAffinesChecked checks that factors read in place are refused as
// AddGaussian and AddSite refuse them, with the same message.
func TestAffinesChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    graph.Affine
		lik  ep.Likelihood
	}{
		{"variance", graph.Affine{Vars: []int{0}, Coefs: []float64{1}, Var: -1}, nil},
		{"range", graph.Affine{Vars: []int{0, 5}, Coefs: []float64{1, 1}, Var: 1}, nil},
		{"coefficient", graph.Affine{Vars: []int{0, 1}, Coefs: []float64{1, 0}, Var: 1}, nil},
		{"twice", graph.Affine{Vars: []int{1, 1}, Coefs: []float64{1, 2}, Var: 1}, nil},
		{"constant", graph.Affine{Vars: []int{0}, Coefs: []float64{1}, Const: math.NaN(), Var: 1}, nil},
		{"label", graph.Affine{Vars: []int{0}, Coefs: []float64{1}, Y: 0.5}, ep.Probit{}},
	} {
		var a graph.Affines
		a.Add(graph.Affine{Vars: []int{0}, Coefs: []float64{1}, Var: 1, Y: 1})
		a.Add(tc.f)
		in, one := NewGraph(2), NewGraph(2)
		if tc.lik == nil {
			in.AddAffines(&a, 0, 2, 0)
			for _, f := range a.All() {
				one.AddGaussian(f.Vars, f.Coefs, f.Const, f.Y, f.Var)
			}
		} else {
			in.AddSites(&a, 0, 2, []ep.Likelihood{tc.lik, tc.lik})
			for _, f := range a.All() {
				one.AddSite(tc.lik, f.Y, f.Vars, f.Coefs, f.Const)
			}
		}
		if in.Err() == nil || one.Err() == nil || in.Err().Error() != one.Err().Error() {
			t.Errorf("%s: read in place: %v; added: %v", tc.name, in.Err(), one.Err())
		}
	}
}

// TestChainReadInPlace checks that a 10⁵-step chain's factors read in
// place take a few runs and no memory per factor or edge in the graph.
func TestChainReadInPlace(t *testing.T) {
	const T = 100_000
	var cond, obs graph.Affines
	cond.Add(graph.Affine{Vars: []int{0}, Coefs: []float64{1}, Var: 100})
	for t := 1; t < T; t++ {
		cond.Add(graph.Affine{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}, Var: 1})
	}
	for t := range T {
		obs.Add(graph.Affine{Vars: []int{t}, Coefs: []float64{1}, Y: math.Sin(float64(t))})
	}
	g := NewGraph(T)
	g.AddAffines(&cond, 0, cond.Len(), 0)
	g.AddAffines(&obs, 0, obs.Len(), 9)
	if len(g.runs) > 4 {
		t.Errorf("%d runs, want ≤ 4", len(g.runs))
	}
	for k := range g.runs {
		if r := &g.runs[k]; r.n > 1 && r.starts != nil {
			t.Errorf("run %d of %d factors is decoded", k, r.n)
		}
	}
}

// TestVarLists checks that the passes over every edge read each factor's
// variables as its view does, in order, for runs of views (read a slot at
// a time, across chunk boundaries) and decoded runs alike.
func TestVarLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inPlace, oneByOne := affineGraphs(rng, 5000)
	var cond graph.Affines
	for t := 1; t < 3000; t++ {
		cond.Add(graph.Affine{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}, Var: 1})
	}
	chain := NewGraph(3000)
	chain.AddAffines(&cond, 0, cond.Len(), 0)
	for _, g := range []*Graph{inPlace, oneByOne, chain} {
		next, e := 0, 0
		for k, vs := range g.varLists() {
			f := g.fac(k)
			var want []int32
			for _, v := range f.vars(nil) {
				want = append(want, int32(v))
			}
			if k != next || f.lo != e || !slices.Equal(vs, want) {
				t.Fatalf("factor %d (want %d) from edge %d: %v; its view %v from edge %d", k, next, e, vs, want, f.lo)
			}
			next, e = k+1, e+len(vs)
		}
		if next != g.NumFactors() || e != g.numEdges() {
			t.Fatalf("%d factors, %d edges listed; the graph has %d, %d", next, e, g.NumFactors(), g.numEdges())
		}
	}
}
