package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 draws m chains of an AR(1) process x_t = φ x_{t−1} + √(1−φ²) ε_t
// started in stationarity, plus offset[c] per chain.
func ar1(m, n int, phi float64, offset []float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]float64, m)
	for c := range out {
		out[c] = make([]float64, n)
		x := rng.NormFloat64()
		for t := range out[c] {
			x = phi*x + math.Sqrt(1-phi*phi)*rng.NormFloat64()
			out[c][t] = x + offset[c]
		}
	}
	return out
}

// TestAutocovFFT: the FFT autocovariance equals the direct sum.
func TestAutocovFFT(t *testing.T) {
	x := ar1(1, 257, 0.7, []float64{0}, 1)[0]
	got := autocov(x)
	m, _ := meanVar(x)
	for _, lag := range []int{0, 1, 2, 10, 100, 256} {
		s := 0.0
		for i := 0; i+lag < len(x); i++ {
			s += (x[i] - m) * (x[i+lag] - m)
		}
		s /= float64(len(x))
		if !(math.Abs(got[lag]-s) <= 1e-12) {
			t.Errorf("lag %d: fft %.15g, direct %.15g", lag, got[lag], s)
		}
	}
}

// TestESSAR1: for AR(1) the integrated autocorrelation time is
// τ = (1 + φ)/(1 − φ) (closed form), so ESS ≈ M N / τ; the estimator is
// checked to 10 % on 4 × 20000 draws, and MeanSE against the closed-form
// standard error √(τ/(M N)).
func TestESSAR1(t *testing.T) {
	for _, phi := range []float64{0, 0.5, 0.9} {
		ch := ar1(4, 20000, phi, make([]float64, 4), uint64(100*phi)+3)
		tau := (1 + phi) / (1 - phi)
		want := 80000 / tau
		s := Summarise(ch)
		t.Logf("phi=%g ESS %.0f want %.0f, rhat %.4f", phi, s.ESS, want, s.RHat)
		if !(math.Abs(s.ESS/want-1) <= 0.1) {
			t.Errorf("phi=%g: ESS %.0f, want %.0f ± 10%%", phi, s.ESS, want)
		}
		if se := math.Sqrt(tau / 80000); !(math.Abs(s.MeanSE/se-1) <= 0.1) {
			t.Errorf("phi=%g: MeanSE %.4g, want %.4g", phi, s.MeanSE, se)
		}
		if s.RHat > 1.01 {
			t.Errorf("phi=%g: R-hat %.4f on stationary chains", phi, s.RHat)
		}
	}
}

// TestRHatSeparatedChains: chains around different means give R-hat well
// above 1; constant chains give 1 (equal) and +Inf (different).
func TestRHatSeparatedChains(t *testing.T) {
	ch := ar1(4, 2000, 0.5, []float64{0, 0, 3, 3}, 9)
	if r := SplitRHat(ch); r < 1.5 {
		t.Errorf("R-hat %.3f on separated chains", r)
	}
	c1 := [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}
	if r := SplitRHat(c1); r != 1 {
		t.Errorf("constant equal chains: R-hat %v", r)
	}
	c2 := [][]float64{{1, 1, 1, 1}, {0, 0, 0, 0}}
	if r := SplitRHat(c2); !math.IsInf(r, 1) {
		t.Errorf("constant different chains: R-hat %v", r)
	}
	if e := ESS(c1); e != 8 {
		t.Errorf("constant chains: ESS %v, want 8", e)
	}
}

// TestDiagnosticsInvalidInput: empty, short, ragged or non-finite chains
// give NaN, never a panic.
func TestDiagnosticsInvalidInput(t *testing.T) {
	for _, ch := range [][][]float64{nil, {{1, 2, 3}}, {{1, 2, 3, 4}, {1, 2, 3}}, {{1, 2, math.NaN(), 4}}} {
		s := Summarise(ch)
		if !math.IsNaN(s.Mean) || !math.IsNaN(ESS(ch)) || !math.IsNaN(SplitRHat(ch)) {
			t.Errorf("%v: want NaN, got %+v", ch, s)
		}
	}
}

// TestBulkESSRankRHat: the rank-normalised diagnostics do not change under
// a monotone transform (exp) and agree with the plain ones on Gaussian AR(1)
// chains (within 10 %); chains with equal locations but scales 1 and 3 pass
// plain split R-hat (< 1.01) and fail the folded rank R-hat (> 1.1).
func TestBulkESSRankRHat(t *testing.T) {
	ch := ar1(4, 5000, 0.7, make([]float64, 4), 11)
	ex := make([][]float64, len(ch))
	for c := range ch {
		ex[c] = make([]float64, len(ch[c]))
		for i, x := range ch[c] {
			ex[c][i] = math.Exp(3 * x)
		}
	}
	b, be := BulkESS(ch), BulkESS(ex)
	if b != be || RankRHat(ch) != RankRHat(ex) {
		t.Errorf("not invariant under exp: bulk ESS %v vs %v, R-hat %v vs %v", b, be, RankRHat(ch), RankRHat(ex))
	}
	if e := ESS(ch); !(math.Abs(b/e-1) <= 0.1) {
		t.Errorf("bulk ESS %.0f, plain ESS %.0f on Gaussian draws", b, e)
	}
	sc := ar1(4, 5000, 0, make([]float64, 4), 12)
	for c := 2; c < 4; c++ {
		for i := range sc[c] {
			sc[c][i] *= 3
		}
	}
	if r, rr := SplitRHat(sc), RankRHat(sc); r > 1.01 || rr < 1.1 {
		t.Errorf("scales 1 and 3: split R-hat %.3f (want < 1.01), rank R-hat %.3f (want > 1.1)", r, rr)
	}
	if e, r := BulkESS([][]float64{{1, 1, 1, 1}}), RankRHat([][]float64{{1, 2}}); e != 4 || !math.IsNaN(r) {
		t.Errorf("constant chain: bulk ESS %v; short chain: R-hat %v", e, r)
	}
}
