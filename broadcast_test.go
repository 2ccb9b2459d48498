package fg_test

import (
	"context"
	"math"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestVectorFormsMatchPlates: a vector statement is its plate, element by
// element — a scalar latent broadcast inside a mixture component, and a
// vector of selectors in a gated likelihood (y ~ normal(mu[z], 1)) — so
// every result (means, variances, p(z), log Z) equals the plate's within
// 1e-12, under ep, exact and mcmc (same seed: the same draws).
func TestVectorFormsMatchPlates(t *testing.T) {
	const head = "model vec\ndata y: real[6] = [-2.1, -1.9, 2.2, 1.8, 2.5, -2.4]\n"
	for _, c := range []struct{ vector, plate, tail string }{
		{"y ~ mixture([0.7, 0.3], normal(mu, 4), normal(0, 100))\n",
			"for i in 0..6 { y[i] ~ mixture([0.7, 0.3], normal(mu, 4), normal(0, 100)) }\n",
			"infer ep\ninfer exact\n"},
		{"y ~ normal(mu2[z], 1)\n",
			"for i in 0..6 { y[i] ~ normal(mu2[z[i]], 1) }\n",
			"infer ep\ninfer exact\ninfer mcmc { samples = 300, burnin = 100, chains = 2 }\n"},
		{"y ~ normal(mu + 0 * mu2[0], [1, 4][z])\n",
			"for i in 0..6 { y[i] ~ normal(mu + 0 * mu2[0], [1, 4][z[i]]) }\n",
			"infer ep\n"},
	} {
		decl := "latent mu: real ~ normal(0, 4)\nlatent mu2: real[2] ~ normal([-2, 2], 1)\nlatent z: cat(2)[6] ~ categorical([0.5, 0.5])\n"
		if c.vector[:5] == "y ~ m" { // no selector: z would be an unused discrete latent
			decl = "latent mu: real ~ normal(0, 4)\n"
		}
		a, b := runSource(t, head+decl+c.vector+c.tail), runSource(t, head+decl+c.plate+c.tail)
		for i, ra := range a.All() {
			sameResults(t, c.vector, ra, b.All()[i])
		}
	}
}

// sameResults fails unless a and b have the same marginals (means and
// variances, p(state 1) of discrete ones) and log Z within 1e-12.
func sameResults(t *testing.T, what string, a, b *fg.Result) {
	t.Helper()
	for _, name := range a.Variables() {
		shape, _ := a.Shape(name)
		n := 1
		for _, d := range shape {
			n *= d
		}
		for k := 0; k < n; k++ {
			if _, err := a.States(name); err == nil {
				pa, _ := a.Prob(name, k, "1")
				pb, _ := b.Prob(name, k, "1")
				if !(math.Abs(pa-pb) <= 1e-12) {
					t.Errorf("%s %s: p(%s[%d] = 1) %g and %g", what, a.Label(), name, k, pa, pb)
				}
				continue
			}
			ma, _ := a.Mean(name, k)
			mb, _ := b.Mean(name, k)
			va, _ := a.Variance(name, k)
			vb, _ := b.Variance(name, k)
			if !(math.Abs(ma-mb) <= 1e-12) || !(math.Abs(va-vb) <= 1e-12) {
				t.Errorf("%s %s: %s[%d] %g ± %g and %g ± %g", what, a.Label(), name, k, ma, va, mb, vb)
			}
		}
	}
	za, oka := a.LogZ()
	zb, okb := b.LogZ()
	if oka != okb || (oka && !(math.Abs(za-zb) <= 1e-12)) {
		t.Errorf("%s %s: log Z %g and %g", what, a.Label(), za, zb)
	}
}

// runSource compiles and runs a model given as source.
func runSource(t *testing.T, src string) *fg.Results {
	t.Helper()
	m, err := fg.LoadBytes("vec.fg", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.All()) == 0 {
		t.Fatal("no results")
	}
	return res
}

// TestPlateOverIndexVector: `for k in tobs` runs over the values of a data
// vector of integers; the posterior of each observed x[k] is the closed
// form N(y·(1/r)/(1 + 1/r), 1/(1 + 1/r)) (1e-12), the others keep their
// prior.
func TestPlateOverIndexVector(t *testing.T) {
	src := "model idx\ndata tobs: int[3] = [0, 3, 4]\ndata y: real[5] = [0.3, 9, 9, -0.4, 0.2]\n" +
		"latent x: real[5] ~ normal(0, 1)\nfor k in tobs { y[k] ~ normal(x[k], 0.5) }\ninfer ep\n"
	r := runSource(t, src).All()[0]
	observed := map[int]bool{0: true, 3: true, 4: true}
	y := []float64{0.3, 9, 9, -0.4, 0.2}
	for k := range y {
		wantM, wantV := 0.0, 1.0
		if observed[k] {
			wantV = 1 / (1 + 1/0.5)
			wantM = y[k] / 0.5 * wantV
		}
		m, _ := r.Mean("x", k)
		v, _ := r.Variance("x", k)
		if !(math.Abs(m-wantM) <= 1e-12) || !(math.Abs(v-wantV) <= 1e-12) {
			t.Errorf("x[%d] = %g ± %g, want %g ± %g", k, m, v, wantM, wantV)
		}
	}
}
