package graph

import "testing"

// BenchmarkAffinesAt reads back a chain's conditionals (x_t − x_{t−1},
// variance 1) one at a time, as the engines' builders do.
func BenchmarkAffinesAt(b *testing.B) {
	const n = 1 << 16
	var a Affines
	for t := 1; t <= n; t++ {
		a.Add(Affine{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}, Var: 1, Factor: t})
	}
	var vars []int
	var coefs []float64
	b.ResetTimer()
	for b.Loop() {
		for k := range n {
			f := a.At(k, vars, coefs)
			vars, coefs = f.Vars, f.Coefs
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/factor")
}
