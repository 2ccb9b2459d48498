package ep

import "fmt"

// maxDense bounds the entries of one dense matrix the engine allocates
// (2²⁴ float64s, 128 MiB): several such matrices live at once (Kf, K Aᵀ, Σ
// on the site-space path; A, T A, A Σ_w on the weight-space path), and the
// factorisations cost O(side³) besides.
const maxDense = 1 << 24

// maxSiteSpace is the largest M whose M×M site-space matrices fit in
// maxDense.
const maxSiteSpace = 1 << 12

// checkSiteSpace refuses a site-space run with more than maxSiteSpace
// sites: its M×M matrices (and the O(M³) factorisations) would not fit.
func checkSiteSpace(m int) error {
	if m > maxSiteSpace {
		return fmt.Errorf("ep: %d sites would need %d×%d site-space matrices; ep handles at most %d sites on a block unless there are more sites than latent elements and the prior is positive definite (then it works in the latent's own space); for a Gaussian process, gp(kernel, X, inducing = Z) runs sparse (FITC) EP in O(n m) memory", m, m, m, maxSiteSpace)
	}
	return nil
}

// checkDense refuses an r×c matrix of more than maxDense entries.
func checkDense(r, c int) error {
	if c > 0 && r > maxDense/c {
		return fmt.Errorf("ep: %d sites on a block of %d elements would need a %d×%d projection matrix, more than the %d entries ep holds", r, c, r, c, maxDense)
	}
	return nil
}
