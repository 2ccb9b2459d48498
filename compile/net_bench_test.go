package compile

import (
	"fmt"
	"strings"
	"testing"
)

// hmmSource is a hidden Markov model of T steps with Gaussian emissions
// (known parameters): a discrete chain and gated emissions.
func hmmSource(T int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "model hmm\ndata y = [")
	for t := 0; t < T; t++ {
		if t > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%g", float64(t%7)/3-1)
	}
	fmt.Fprintf(&b, `]
data A = [[0.9, 0.1], [0.2, 0.8]]
data mu = [-1, 1]
latent z: cat(2)[%d]
z[0] ~ categorical([0.5, 0.5])
for t in 1..%d {
  z[t] ~ categorical(A[z[t - 1]])
}
for t in 0..%d {
  y[t] ~ normal(mu[z[t]], 1)
}
`, T, T, T)
	return b.String()
}

// BenchmarkCompileHMM lowers an HMM to the typed factor graph; the cost
// per step is constant (go test -bench CompileHMM -benchmem ./compile).
func BenchmarkCompileHMM(b *testing.B) {
	for _, T := range []int{1000, 10000} {
		src := []byte(hmmSource(T))
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m, err := CompileSource("hmm.fg", src, Options{})
				if err != nil || len(m.Net.Factors) != 2*T {
					b.Fatal(err)
				}
			}
		})
	}
}
