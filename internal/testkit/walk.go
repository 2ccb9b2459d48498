package testkit

import (
	"math"
	"math/rand/v2"

	"github.com/fg-infer/fg/internal/mathx"
)

// The probit random walk, the long chain with non-Gaussian sites that
// tests hold ep and mcmc to, and its exact posterior on a grid.

// ProbitWalkLabels draws a random walk x_0 ~ N(0, 1), x_t ~ N(x_{t−1}, q),
// t = 1 … T, and labels y_t = sign(x_t + ε_t), ε_t ~ N(0, 1), from a seeded
// PCG source. With q = 0.1 the walk wanders into long stretches of equal
// labels.
func ProbitWalkLabels(T int, q float64) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	ys := make([]float64, T+1)
	x := rng.NormFloat64()
	for t := range ys {
		if t > 0 {
			x += math.Sqrt(q) * rng.NormFloat64()
		}
		ys[t] = 1
		if x+rng.NormFloat64() < 0 {
			ys[t] = -1
		}
	}
	return ys
}

// GridSmoother is the exact posterior marginal of every step of the probit
// walk by forward–backward on a grid (lo, lo + h, …, hi): the transition
// density N(x_t − x_{t−1}; 0, q) as a band of ±8 sd, the label Φ(y_t x_t),
// each message normalised. With h = 0.02 (16 points per transition sd) the
// moments agree with h = 0.01 to 3e-6.
func GridSmoother(ys []float64, q, lo, hi, h float64) (mean, vr []float64) {
	G := int(math.Round((hi-lo)/h)) + 1
	B := int(math.Ceil(8 * math.Sqrt(q) / h))
	ker := make([]float64, 2*B+1)
	for d := -B; d <= B; d++ {
		ker[d+B] = math.Exp(-0.5 * float64(d*d) * h * h / q)
	}
	at := func(g int) float64 { return lo + float64(g)*h }
	conv := func(in, out []float64) { // out = ker ∗ in, normalised
		s := 0.0
		for g := range out {
			out[g] = 0
			for d := max(-B, -g); d <= B && g+d < G; d++ {
				out[g] += ker[d+B] * in[g+d]
			}
			s += out[g]
		}
		for g := range out {
			out[g] /= s
		}
	}
	n := len(ys)
	alpha := make([][]float64, n) // filtered densities, label included
	for t := range alpha {
		alpha[t] = make([]float64, G)
		if t == 0 {
			for g := range alpha[t] {
				alpha[t][g] = math.Exp(-0.5 * at(g) * at(g))
			}
		} else {
			conv(alpha[t-1], alpha[t])
		}
		for g := range alpha[t] {
			alpha[t][g] *= mathx.Phi(ys[t] * at(g))
		}
	}
	beta, tmp := make([]float64, G), make([]float64, G)
	for g := range beta {
		beta[g] = 1
	}
	mean, vr = make([]float64, n), make([]float64, n)
	for t := n - 1; t >= 0; t-- {
		if t < n-1 {
			for g := range tmp {
				tmp[g] = beta[g] * mathx.Phi(ys[t+1]*at(g))
			}
			conv(tmp, beta)
		}
		s, m1, m2 := 0.0, 0.0, 0.0
		for g := range beta {
			w := alpha[t][g] * beta[g]
			s, m1, m2 = s+w, m1+w*at(g), m2+w*at(g)*at(g)
		}
		mean[t] = m1 / s
		vr[t] = m2/s - mean[t]*mean[t]
	}
	return mean, vr
}
