package ep

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer"
)

// siteSpaceMatrices is how many M×M float64 matrices site-space EP is
// charged for against the memory budget (infer.MemoryBudget). A run holds
// three: Kf, Σ and B's Cholesky factor (a refresh writes the new Σ over the
// old one and B's storage is reused, state.go); the collector's slack
// brings the measured peak heap to 3.3–4.2 such matrices
// (BenchmarkRunPeakHeap, cmd/fgbench), and learning adds the gradient's
// M×M solves (GradLogZ). 6 leaves room for both.
const siteSpaceMatrices = 6

// weightSpaceMatrices is the same count for the M×N matrices of the
// weight-space path (A, T A, A Σ_w).
const weightSpaceMatrices = 3

// maxSiteSpace is the largest M whose site-space matrices fit in the
// memory budget: 11585 on a 24 GiB machine (6 GiB budget), 4729 under a
// 2 GiB data limit (1 GiB budget).
func maxSiteSpace() int {
	return int(math.Sqrt(float64(infer.MemoryBudget() / (8 * siteSpaceMatrices))))
}

// denseBytes is the memory of k r×c float64 matrices, saturating at
// MaxInt64.
func denseBytes(k, r, c int) int64 {
	if r > 0 && c > math.MaxInt64/8/k/r {
		return math.MaxInt64
	}
	return int64(k) * int64(r) * int64(c) * 8
}

// checkSiteSpace refuses a site-space run with more than maxSiteSpace
// sites: its M×M matrices (and the O(M³) factorisations) would not fit.
func checkSiteSpace(m int) error {
	if need, budget := denseBytes(siteSpaceMatrices, m, m), infer.MemoryBudget(); need > budget {
		return fmt.Errorf("ep: %d sites would need %d×%d site-space matrices (%s), more than the memory budget of %s: ep handles at most %d sites on a block unless there are more sites than latent elements and the prior is positive definite (then it works in the latent's own space); for a Gaussian process, gp(kernel, X, inducing = Z) runs sparse (FITC) EP in O(n m) memory",
			m, m, m, infer.FormatBytes(need), infer.FormatBytes(budget), maxSiteSpace())
	}
	return nil
}

// checkDense refuses the weight-space path's r×c matrices when they would
// not fit in the memory budget.
func checkDense(r, c int) error {
	if need, budget := denseBytes(weightSpaceMatrices, r, c), infer.MemoryBudget(); need > budget {
		return fmt.Errorf("ep: %d sites on a block of %d elements would need %d×%d projection matrices (%s), more than the memory budget of %s", r, c, r, c, infer.FormatBytes(need), infer.FormatBytes(budget))
	}
	return nil
}
