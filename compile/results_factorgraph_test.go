package compile

import (
	"fmt"
	"strings"
	"testing"
)

// TestFGPredictSpec checks what a predict on a factor-graph model
// records: the latent's variables, the gp block, the reported quantity
// s·g* + r and the sites' common argument (or no likelihood when the
// sites differ).
func TestFGPredictSpec(t *testing.T) {
	head := `
data X: real[3, 1] = [[0], [1], [2]]
data y: spin[3] = [1, -1, 1]
latent c: real ~ normal(0, 1)
latent f: real[3] ~ gp(se(1, 1), X)
latent b: real ~ normal(0, 1)
`
	cases := []struct {
		name, body  string
		scale       float64
		rest        []int
		restC       float64
		lik         bool
		siteScale   float64
		siteVars    []int
		siteConst   float64
		siteCoefs   []float64
		restCoefs   []float64
		predictExpr string
	}{
		{name: "bias", body: "for i in 0..3 { y[i] ~ probit(f[i] + b) }", predictExpr: "f",
			scale: 1, lik: true, siteScale: 1, siteVars: []int{4}, siteCoefs: []float64{1}},
		{name: "scaled sites, shifted predict", body: "for i in 0..3 { y[i] ~ probit(2 * f[i] - b + 0.5) }", predictExpr: "f + 3 * b - 1",
			scale: 1, rest: []int{4}, restCoefs: []float64{3}, restC: -1, lik: true, siteScale: 2, siteVars: []int{4}, siteCoefs: []float64{-1}, siteConst: 0.5},
		{name: "sites differ", body: "y[0] ~ probit(f[0] + b)\ny[1] ~ probit(f[1] + c)\ny[2] ~ probit(f[2])", predictExpr: "-f",
			scale: -1},
	}
	for _, tc := range cases {
		m, fg := fgOf(t, head+tc.body+"\npredict p = predictive("+tc.predictExpr+", [[0.5], [3]])\ninfer ep\n")
		if len(m.Predicts) != 1 {
			t.Fatalf("%s: %d predicts", tc.name, len(m.Predicts))
		}
		p := m.Predicts[0]
		if p.Block != -1 || p.FG == nil || p.FG.Dense != 0 || fmt.Sprint(p.FG.Vars) != "[1 2 3]" || fg.Dense[0].Name != "f" {
			t.Fatalf("%s: %+v %+v", tc.name, p, p.FG)
		}
		if p.FG.Scale != tc.scale {
			t.Errorf("%s: scale %g, want %g", tc.name, p.FG.Scale, tc.scale)
		}
		wantAffine(t, tc.name+" rest", p.FG.Rest, tc.rest, tc.restCoefs, tc.restC)
		if (p.Lik != nil) != tc.lik {
			t.Fatalf("%s: likelihood %v, want one: %v", tc.name, p.Lik, tc.lik)
		}
		if tc.lik {
			if p.FG.SiteScale != tc.siteScale {
				t.Errorf("%s: site scale %g, want %g", tc.name, p.FG.SiteScale, tc.siteScale)
			}
			wantAffine(t, tc.name+" site rest", p.FG.SiteRest, tc.siteVars, tc.siteCoefs, tc.siteConst)
		}
	}
}

// TestFGPredictJointBound: ep under family = full keeps a dense joint of
// at most fgraph.MaxJoint elements; a predict on a longer chain is refused
// at its position, as under exact (the linear-Gaussian chain is then
// solved as a dense joint too), and runs under family = factorized.
func TestFGPredictJointBound(t *testing.T) {
	src := `
latent x: real[4000]
latent w: real ~ normal(0, 1)
x[0] ~ normal(0, 1)
for t in 1..4000 { x[t] ~ normal(x[t-1], 1) }
data y: real[2] = [0.5, 1]
y[0] ~ normal(x[0], 1)
y[1] ~ normal(x[3999] + w, 1)
predict p = predictive(w, [[1]])
infer ep %s
`
	_, err := CompileSource("chain.fg", []byte(fmt.Sprintf(src, "")), Options{})
	if err == nil || !strings.Contains(err.Error(), "chain.fg:9:1") || !strings.Contains(err.Error(), "at most 4000 latent elements; this model has 4001: use ep with family = factorized") {
		t.Errorf("error %v", err)
	}
	_, err = CompileSource("chain.fg", []byte(strings.Replace(fmt.Sprintf(src, ""), "infer ep \n", "infer exact\n", 1)), Options{})
	if err == nil || !strings.Contains(err.Error(), "which exact keeps for at most 4000") {
		t.Errorf("exact: error %v", err)
	}
	mustCompile(t, fmt.Sprintf(src, "{ family = factorized }"), Options{})
}
