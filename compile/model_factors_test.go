package compile

import (
	"reflect"
	"testing"
)

// TestGraphHoldsDiscreteFactorsOnly: a compiled model's Graph holds its
// discrete factors (a table or a log-linear statistic each) and no
// continuous one; Model.Factors lists every factor, Graph's and the
// FactorGraph's, numbered as the IR numbers them (a block's prior, a
// conditional, a site, a gate, a mini-batch potential are found at their
// Factor), and its random access agrees with its iteration.
func TestGraphHoldsDiscreteFactorsOnly(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		discrete   int // factors Graph keeps
		continuous int // factors only the FactorGraph holds
	}{
		{"chain", `model chain
latent x: real[4]
x[0] ~ normal(0, 10)
for t in 1..4 { x[t] ~ normal(0.9 * x[t-1], 1) }
data y = [0.5, 1, 1.5, 2]
for t in 0..4 { y[t] ~ normal(x[t], 0.25) }
infer ep`, 0, 1 + 3 + 4},
		{"blocks", `model blocks
latent f: real[3] ~ gp(se(1, 1), [0, 1, 2])
data y = [1, -1, 1]
for i in 0..3 { y[i] ~ probit(f[i]) }
latent w: real[2] ~ normal(0, 1)
factor exp(-(w[0] - 1) * (w[0] - 1))
infer ep`, 0, 1 + 3 + 1 + 1},
		{"gated", `model gated
latent mu: real[2] ~ normal(0, 10)
latent z: cat(2)[3]
data y = [-2, 2.5, -1.5]
for i in 0..3 {
  z[i] ~ categorical([0.5, 0.5])
  y[i] ~ normal(mu[z[i]], 1)
}
infer ep`, 3, 1 + 3},
	} {
		m, err := CompileSource(tc.name+".fg", []byte(tc.src), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, f := range m.Graph.Factors() {
			if f.Table == nil && f.Stat == nil {
				t.Errorf("%s: Graph factor %d %q is not discrete", tc.name, i, f.Label)
			}
		}
		if got := m.Graph.NumFactors(); got != tc.discrete {
			t.Errorf("%s: Graph holds %d factors, want %d", tc.name, got, tc.discrete)
		}
		fl := m.Factors()
		if got := fl.NumFactors(); got != tc.discrete+tc.continuous {
			t.Errorf("%s: Factors lists %d factors, want %d", tc.name, got, tc.discrete+tc.continuous)
		}
		n := 0
		for i, f := range fl.LabelledFactors() {
			if i != n {
				t.Fatalf("%s: factor %d listed as %d", tc.name, n, i)
			}
			if g := fl.LabelledFactor(i); !reflect.DeepEqual(g, f) {
				t.Errorf("%s: LabelledFactor(%d) = %+v, iteration gives %+v", tc.name, i, g, f)
			}
			if f.Label == "" || len(f.Vars) == 0 || !f.Pos.IsValid() {
				t.Errorf("%s: factor %d without label, variables or position: %+v", tc.name, i, f)
			}
			n++
		}
		fg := m.FactorGraph
		at := func(what string, num int, label string) {
			t.Helper()
			if f := fl.LabelledFactor(num); f.Label != label {
				t.Errorf("%s: %s at number %d is %q, want %q", tc.name, what, num, f.Label, label)
			}
		}
		for i := range fg.NumGaussians() {
			if g := fg.Gaussian(i); g.Target == g.Aff.Vars[0] && len(g.Aff.Vars) > 1 {
				at("conditional", g.Factor, g.Label)
			}
		}
		for i := range fg.NumSites() {
			s := fg.Site(i)
			at("site", s.Factor, s.Label)
		}
		for _, gt := range fg.Gates {
			at("gate", gt.Factor, gt.Label)
		}
		for _, b := range fg.Dense {
			at("prior", b.Factor, b.Prior.Kind.Name()+"("+b.Name+")")
			for _, s := range b.Sites {
				at("block site", s.Factor, s.Label)
			}
			for _, bf := range b.Batches {
				at("mini-batch potential", bf.Factor, bf.Label)
			}
		}
	}
}
