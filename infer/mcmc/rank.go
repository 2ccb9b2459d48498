package mcmc

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// rankNormalise returns the chains with every draw replaced by its normal
// score z = Φ⁻¹((r − 3/8) / (S + 1/4)), r its rank among all S draws
// (ties get their average rank) (Vehtari, Gelman, Simpson, Carpenter &
// Bürkner 2021, "Rank-normalization, folding, and localization", Bayesian
// Analysis 16, eq. 14). The scores do not depend on any monotone transform
// of the draws, and exist whatever their tails.
func rankNormalise(chains [][]float64) [][]float64 {
	type draw struct {
		x    float64
		c, t int
	}
	var all []draw
	for c, ch := range chains {
		for t, x := range ch {
			all = append(all, draw{x, c, t})
		}
	}
	slices.SortFunc(all, func(a, b draw) int { return cmp.Compare(a.x, b.x) })
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
	}
	s := float64(len(all))
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		r := float64(i+j+1) / 2 // average of the ranks i+1 … j
		z := distuv.UnitNormal.Quantile((r - 0.375) / (s + 0.25))
		for _, d := range all[i:j] {
			out[d.c][d.t] = z
		}
		i = j
	}
	return out
}

// fold returns |x − median| of the pooled draws, chain by chain.
func fold(chains [][]float64) [][]float64 {
	var pooled []float64
	for _, ch := range chains {
		pooled = append(pooled, ch...)
	}
	slices.Sort(pooled)
	n := len(pooled)
	med := (pooled[(n-1)/2] + pooled[n/2]) / 2
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
		for t, x := range ch {
			out[c][t] = math.Abs(x - med)
		}
	}
	return out
}

// BulkESS is the bulk effective sample size of Stan: ESS of the
// rank-normalised draws (Vehtari et al. 2021, §4.3). Stan asks for at least
// 100 per chain (400 for 4 chains) before trusting posterior summaries. NaN
// for invalid input (see Summarise).
func BulkESS(chains [][]float64) float64 {
	if !validChains(chains) {
		return math.NaN()
	}
	return ESS(rankNormalise(chains))
}

// RankRHat is the rank-normalised split R-hat of Vehtari et al. (2021,
// §4.2): the larger of split R-hat on the rank-normalised draws (locations
// differ) and on the rank-normalised folded draws |x − median| (scales
// differ). Stan's threshold for converged chains is 1.01. NaN for invalid
// input (see Summarise).
func RankRHat(chains [][]float64) float64 {
	if !validChains(chains) {
		return math.NaN()
	}
	return math.Max(SplitRHat(rankNormalise(chains)), SplitRHat(rankNormalise(fold(chains))))
}
