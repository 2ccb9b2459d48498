package benchdata

import "fmt"

// IsingGridSource is the r×r Ising grid written in fg's language: a plate
// over nodes(G) with field h[i] ~ N(0, 1) and a plate over edges(G) with
// ising (at r = 1000: 10⁶ variables and 2 998 000 factors). With perEdge
// every edge has its own coupling J[k] ~ N(0, 0.5²) (the spin glass of
// libDAI's createfg grids), else all share J = 0.25; its infer line runs
// BP for passes passes. docs/performance.md measures `fg run` on it.
func IsingGridSource(r int, perEdge bool, passes int) []byte {
	coupling, J := "param J = 0.25", "J"
	if perEdge {
		coupling, J = "data J = random_normal(4, len(G), 0, 0.5)", "J[k]"
	}
	return fmt.Appendf(nil, `model grid
data G = grid(%d, %d)
%s
data h = random_normal(3, nodes(G), 0, 1)
latent x: spin[nodes(G)] ~ uniform_spin()
for i in 0..nodes(G) {
  factor field(x[i], h[i])
}
for (k, i, j) in edges(G) {
  factor ising(x[i], x[j], %s)
}
infer bp { max_iter = %d }
`, r, r, coupling, J, passes)
}
