package compile

import (
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestDivergenceKL: `divergence = kl`, the divergence without a
// parameter, compiles (it used to index its missing parameter) on a
// Gaussian model and on a typed factor graph.
func TestDivergenceKL(t *testing.T) {
	for _, src := range []string{
		"latent x: real ~ normal(0, 1)\ndata y = 1\ny ~ normal(x, 1)\ninfer ep { divergence = kl }\n",
		"latent p: real ~ beta(2, 2)\ndata y = 1\ny ~ bernoulli(p)\ninfer ep { divergence = kl }\n",
	} {
		m, err := CompileSource("kl.fg", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Infers[0].Settings.Divergence.(infer.KL); !ok {
			t.Errorf("divergence %v, want kl", m.Infers[0].Settings.Divergence)
		}
	}
}
