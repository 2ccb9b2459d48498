package run

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestFactorGraphSingularGPBlock: a GP with a smooth kernel on 30 close
// inputs has a numerically singular Gram matrix. Inside a factor graph (a
// latent bias b, sites on f[i] + b) the block is N(0, K + δI) with
// gauss.CholeskyJitter's δ, and the run says so; the block engine never
// factorises K (GPML's B form), so the same model written as one block —
// the bias integrated out, kernel K + σ_b² 11ᵀ, sites on g[i] — needs no
// jitter: the two log Z_EP agree to 1e-8 (measured 4e-10; δ = 2e-10 at the kernel's scale 1).
func TestFactorGraphSingularGPBlock(t *testing.T) {
	var xs, ys []string
	for i := 0; i < 30; i++ {
		xs = append(xs, fmt.Sprintf("[%g]", -3+6*float64(i)/29))
		ys = append(ys, []string{"1", "1", "-1"}[i%3])
	}
	data := fmt.Sprintf("data X: real[30, 1] = [%s]\ndata y = [%s]\n", strings.Join(xs, ", "), strings.Join(ys, ", "))
	fg := runNetSource(t, "model fg\n"+data+`latent f: real[30] ~ gp(se(1, 2), X)
latent b: real ~ normal(0, 1)
for i in 0..30 {
  y[i] ~ probit(f[i] + b)
}
infer ep
`)[0]
	block := runNetSource(t, "model block\n"+data+`latent g: real[30] ~ gp(se(1, 2) + bias(1), X)
for i in 0..30 {
  y[i] ~ probit(g[i])
}
infer ep
`)[0]
	if !fg.HasEvidence || !block.HasEvidence || !(math.Abs(fg.LogEvidence-block.LogEvidence) <= 1e-8) {
		t.Errorf("log Z: factor graph %.12g, block %.12g", fg.LogEvidence, block.LogEvidence)
	}
	warned := false
	for _, w := range fg.Warnings {
		warned = warned || strings.Contains(w.Message, "numerically singular")
	}
	if !warned {
		t.Errorf("no warning of the jitter: %v", fg.Warnings)
	}
	for _, w := range block.Warnings {
		t.Errorf("block: unexpected warning %q", w.Message)
	}
}
