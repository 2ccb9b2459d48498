package run

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
)

// engineModels cover the structures of the method registry: Gaussian
// blocks, a factor graph of real latents, gated likelihoods, discrete
// latents and a typed factor graph, each with a line of every method that
// runs on it.
var engineModels = []string{
	"latent w: real[2] ~ normal(0, 1)\ndata X: real[3, 2] = [[1, 0], [0, 1], [1, 1]]\nfor i in 0..3 { 1 ~ probit(dot(X[i], w)) }\ninfer ep\ninfer exact\ninfer mcmc { samples = 200, burnin = 50, chains = 2 }\n",
	"latent x: real[3]\nx[0] ~ normal(0, 1)\nfor t in 1..3 { x[t] ~ normal(x[t-1], 0.5) }\n1 ~ probit(x[2])\ninfer ep\ninfer exact\ninfer mcmc { samples = 200, burnin = 50, chains = 2 }\n",
	"data y: real[3] = [-1.5, 0.2, 1.8]\nlatent mu: real[2] ~ normal([-1, 1], 1)\nlatent z: cat(2)[3]\nfor i in 0..3 {\n  z[i] ~ categorical([0.4, 0.6])\n  y[i] ~ normal(mu[z[i]], 1)\n}\ninfer ep\ninfer exact\ninfer mcmc { samples = 200, burnin = 50, chains = 2 }\n",
	"latent s: spin[3] ~ uniform_spin()\nfactor ising(s[0], s[1], 0.5)\nfactor ising(s[1], s[2], -0.3)\ninfer bp\ninfer exact\ninfer mcmc { samples = 200, burnin = 50, chains = 2 }\n",
	"data y: bool[4] = [1, 0, 1, 1]\nlatent p: real ~ beta(2, 2)\nfor i in 0..4 { y[i] ~ bernoulli(p) }\ninfer ep\ninfer exact\ninfer mcmc { samples = 200, burnin = 50, chains = 2 }\n",
}

// TestEngineRunAsRun: an engine's Run, called on the engine Model.Engine
// names, gives the result Run gives for the same
// line (bit for bit: the same runner, nothing else between), for every
// engine of the registry.
func TestEngineRunAsRun(t *testing.T) {
	ran := map[compile.Engine]bool{}
	for _, src := range engineModels {
		m := compileSrc(t, src)
		all, err := Run(context.Background(), m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, spec := range m.Infers {
			eng, err := m.Engine(spec)
			if err != nil {
				t.Fatal(err)
			}
			ran[eng] = true
			r, err := eng.Run(context.Background(), m, spec, nil)
			if err != nil || !r.Status.HasNumbers() {
				t.Errorf("%s on structure %d: %v, %v", spec.Label, m.Structure(), r.Status, err)
				continue
			}
			want := all[i]
			if r.Label != want.Label || r.Status != want.Status || r.LogEvidence != want.LogEvidence || r.Variables.Len() != want.Variables.Len() {
				t.Errorf("%s: %s %v log Z %v, Run gave %s %v %v", spec.Label, r.Label, r.Status, r.LogEvidence, want.Label, want.Status, want.LogEvidence)
				continue
			}
			for k := range r.Variables.Len() {
				a, b := r.Variables.At(k), want.Variables.At(k)
				if !slices.Equal(a.Mean, b.Mean) || !slices.Equal(a.Var, b.Var) || !slices.EqualFunc(a.Probs, b.Probs, slices.Equal) {
					t.Errorf("%s: %s %v %v %v, Run gave %v %v %v", spec.Label, a.Name, a.Mean, a.Var, a.Probs, b.Mean, b.Var, b.Probs)
				}
			}
		}
	}
	for _, meth := range infer.Methods {
		for s := infer.Blocks; s <= infer.Net; s++ {
			if eng, err := compile.EngineFor(meth, s); err == nil && !ran[eng] {
				t.Errorf("engine %T (%s on structure %d) not run", eng, meth, s)
			}
		}
	}
}

// TestEngineRunCanceled: an engine run under a canceled context returns
// the context's error and a result with status canceled and no numbers.
func TestEngineRunCanceled(t *testing.T) {
	m := compileSrc(t, engineModels[0])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, spec := range m.Infers {
		eng, err := m.Engine(spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := eng.Run(ctx, m, spec, nil)
		if !errors.Is(err, context.Canceled) || r.Status != infer.Canceled || r.Variables.Len() != 0 || r.HasEvidence {
			t.Errorf("%s: %v, status %v, %d variables, evidence %v", spec.Label, err, r.Status, r.Variables.Len(), r.HasEvidence)
		}
	}
}
