package mcmc

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Summary is the Monte Carlo summary of one scalar quantity over several
// chains of equal length.
type Summary struct {
	Mean, Var     float64 // pooled over all draws
	MeanSE, VarSE float64 // Monte Carlo standard errors
	ESS           float64 // effective sample size of the draws (for MeanSE)
	RHat          float64 // split R-hat
}

// validChains reports whether chains is usable by the diagnostics: at least
// one chain, all of the same length ≥ 4, all draws finite.
func validChains(chains [][]float64) bool {
	if len(chains) == 0 || len(chains[0]) < 4 {
		return false
	}
	for _, c := range chains {
		if len(c) != len(chains[0]) {
			return false
		}
		for _, x := range c {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}

// nanSummary is the result for invalid input.
var nanSummary = Summary{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}

// Summarise pools the draws of every chain (chains[c][t]; all chains the
// same length ≥ 4, finite draws — otherwise every field is NaN) and computes
//
//	MeanSE = √(Var / ESS(x)),  VarSE = sd(y) / √ESS(y),  y_t = (x_t − mean)²,
//
// with ESS from ESS and R-hat from SplitRHat. (Stan's convergence
// diagnostics, BulkESS and RankRHat, sort the draws and are computed
// separately, once per reported quantity.)
func Summarise(chains [][]float64) Summary {
	if !validChains(chains) {
		return nanSummary
	}
	var s Summary
	n := 0
	for _, c := range chains {
		for _, x := range c {
			s.Mean += x
		}
		n += len(c)
	}
	s.Mean /= float64(n)
	sq := make([][]float64, len(chains))
	ysum := 0.0
	for i, c := range chains {
		sq[i] = make([]float64, len(c))
		for t, x := range c {
			d := (x - s.Mean) * (x - s.Mean)
			sq[i][t] = d
			ysum += d
		}
	}
	s.Var = ysum / float64(n-1)
	s.ESS = ESS(chains)
	s.RHat = SplitRHat(chains)
	s.MeanSE = math.Sqrt(s.Var / s.ESS)
	ym := ysum / float64(n)
	yv := 0.0
	for _, c := range sq {
		for _, y := range c {
			yv += (y - ym) * (y - ym)
		}
	}
	yv /= float64(n - 1)
	s.VarSE = math.Sqrt(yv / ESS(sq))
	return s
}

// split halves every chain (dropping the middle draw of odd lengths), as
// split R-hat and the multi-chain ESS of Stan do (Vehtari et al. 2021, §3.1).
func split(chains [][]float64) [][]float64 {
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		h := len(c) / 2
		out = append(out, c[:h], c[len(c)-h:])
	}
	return out
}

// meanVar returns the mean and the unbiased variance of x.
func meanVar(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, s / float64(len(x)-1)
}

// varParts returns W, the mean within-chain variance, and
// var⁺ = (n−1)/n W + B/n with B/n the variance of the chain means
// (Gelman et al., BDA3 eq. 11.2–11.3), for chains of length n.
func varParts(chains [][]float64) (w, varPlus float64) {
	m := len(chains)
	n := len(chains[0])
	means := make([]float64, m)
	for j, c := range chains {
		var v float64
		means[j], v = meanVar(c)
		w += v
	}
	w /= float64(m)
	varPlus = float64(n-1) / float64(n) * w
	if m > 1 {
		_, bn := meanVar(means)
		varPlus += bn
	}
	return w, varPlus
}

// SplitRHat is the split potential scale reduction factor
// R̂ = √(var⁺ / W) over the split halves of the chains (Gelman et al., BDA3
// §11.4). It is 1 for identical constant chains and +Inf when the halves are
// constant but differ; NaN for invalid input (see Summarise).
func SplitRHat(chains [][]float64) float64 {
	if !validChains(chains) {
		return math.NaN()
	}
	h := split(chains)
	w, vp := varParts(h)
	if w == 0 {
		if vp == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return math.Sqrt(vp / w)
}

// ESS is the multi-chain effective sample size of Stan (Stan Reference
// Manual, "Effective sample size"; Vehtari et al. 2021 eq. 10–11, without
// rank normalisation) on split chains: with autocovariances γ_j(t) of each
// of the M split chains of length N (by FFT),
//
//	ρ_t = 1 − (W − mean_j γ_j(t)) / var⁺,
//
// Geyer's initial monotone sequence estimator sums the pairs
// P_k = ρ_2k + ρ_2k+1 while they are positive, forcing them non-increasing,
// τ = −1 + 2 Σ_k P_k, and ESS = M N / τ, capped at M N log10(M N). Constant
// draws (var⁺ = 0) have ESS = M N; invalid input (see Summarise) gives NaN.
func ESS(chains [][]float64) float64 {
	if !validChains(chains) {
		return math.NaN()
	}
	h := split(chains)
	m, n := len(h), len(h[0])
	total := float64(m * n)
	w, vp := varParts(h)
	if vp == 0 || n < 4 {
		return total
	}
	ac := newAutocorr(h)
	rho := func(t int) float64 {
		if t == 0 {
			return 1
		}
		return 1 - (w-ac.mean(t))/vp
	}
	tau := math.Max(geyer(rho, n), 1/math.Log10(total))
	ess := total / tau
	return math.Min(ess, total*math.Log10(total))
}

// geyer returns τ = −1 + 2 Σ_k P_k with the initial positive and monotone
// sequence of P_k = ρ_2k + ρ_2k+1 (Geyer 1992).
func geyer(rho func(int) float64, n int) float64 {
	sum, prev := 0.0, math.Inf(1)
	for k := 0; 2*k+1 < n; k++ {
		p := rho(2*k) + rho(2*k+1)
		if p <= 0 {
			break
		}
		p = math.Min(p, prev)
		sum += p
		prev = p
	}
	return -1 + 2*sum
}

// autocov returns the biased autocovariances γ(t) = (1/n)·Σ_i (x_i − x̄)(x_i+t − x̄)
// (Stan's convention), computed by FFT with zero padding to a power of two ≥ 2n.
func autocov(x []float64) []float64 {
	n := len(x)
	m, _ := meanVar(x)
	size := 1
	for size < 2*n {
		size *= 2
	}
	seq := make([]float64, size)
	for i, v := range x {
		seq[i] = v - m
	}
	fft := fourier.NewFFT(size)
	c := fft.Coefficients(nil, seq)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	r := fft.Sequence(nil, c)
	out := make([]float64, n)
	for t := range out {
		out[t] = r[t] / float64(size) / float64(n)
	}
	return out
}

// directLags is the number of lags computed by direct sums before all
// autocovariances are computed at once by FFT.
const directLags = 64

// autocorr provides the chain-averaged autocovariance mean_j γ_j(t) of
// split chains lazily: direct O(N) sums for the first directLags lags (the
// Geyer sequence of a well-mixing chain stops there), then by FFT.
type autocorr struct {
	chains [][]float64
	means  []float64
	fft    [][]float64
}

func newAutocorr(chains [][]float64) *autocorr {
	a := &autocorr{chains: chains, means: make([]float64, len(chains))}
	for j, c := range chains {
		a.means[j], _ = meanVar(c)
	}
	return a
}

// mean returns (1/M) Σ_j γ_j(t) with γ_j(t) = (1/N) Σ_i (x_i − x̄)(x_i+t − x̄).
func (a *autocorr) mean(t int) float64 {
	if t >= directLags && a.fft == nil {
		a.fft = make([][]float64, len(a.chains))
		for j, c := range a.chains {
			a.fft[j] = autocov(c)
		}
	}
	s := 0.0
	for j, c := range a.chains {
		if a.fft != nil {
			s += a.fft[j][t]
			continue
		}
		m, g := a.means[j], 0.0
		for i := 0; i+t < len(c); i++ {
			g += (c[i] - m) * (c[i+t] - m)
		}
		s += g / float64(len(c))
	}
	return s / float64(len(a.chains))
}
