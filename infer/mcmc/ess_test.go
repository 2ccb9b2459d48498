package mcmc

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// gpRegression is GP regression with an SE kernel k(x, x') = exp(−(x−x')²/2)
// on inputs xs, Gaussian noise s2 and its closed-form posterior
// mean = K (K + s2 I)⁻¹ y, cov = K − K (K + s2 I)⁻¹ K (by Cholesky solves).
type gpRegression struct {
	k          *mat.SymDense
	y          []float64
	s2         float64
	mean       []float64
	cov        *mat.Dense
	loglik     func([]float64) float64
	prior0     []float64
	dimensions int
}

func newGP(t testing.TB, n int) *gpRegression {
	g := &gpRegression{k: mat.NewSymDense(n, nil), y: make([]float64, n), s2: 0.3, prior0: make([]float64, n), dimensions: n}
	for i := 0; i < n; i++ {
		xi := -2 + 4*float64(i)/float64(n-1)
		g.y[i] = math.Sin(2*xi) + 0.3*math.Cos(7*xi)
		for j := 0; j < n; j++ {
			xj := -2 + 4*float64(j)/float64(n-1)
			g.k.SetSym(i, j, math.Exp(-(xi-xj)*(xi-xj)/2))
		}
		g.k.SetSym(i, i, g.k.At(i, i)+1e-8)
	}
	ky := mat.NewSymDense(n, nil)
	ky.CopySym(g.k)
	for i := 0; i < n; i++ {
		ky.SetSym(i, i, ky.At(i, i)+g.s2)
	}
	var ch mat.Cholesky
	if !ch.Factorize(ky) {
		t.Fatal("K + s2 I not PD")
	}
	var a mat.VecDense
	if err := ch.SolveVecTo(&a, mat.NewVecDense(n, g.y)); err != nil {
		t.Fatal(err)
	}
	var m mat.VecDense
	m.MulVec(g.k, &a)
	g.mean = m.RawVector().Data
	var kk mat.Dense
	if err := ch.SolveTo(&kk, g.k); err != nil {
		t.Fatal(err)
	}
	var q mat.Dense
	q.Mul(g.k, &kk)
	g.cov = mat.DenseCopyOf(g.k)
	g.cov.Sub(g.cov, &q)
	g.loglik = func(f []float64) float64 {
		s := 0.0
		for i, v := range f {
			e := g.y[i] - v
			s -= 0.5 * e * e / g.s2
		}
		return s
	}
	return g
}

func (g *gpRegression) problem() Problem {
	return Problem{Mean: g.prior0, Cov: g.k, LogLik: g.loglik}
}

// TestESSGPRegression: elliptical slice sampling on GP regression (n = 8)
// agrees with the closed-form posterior means and variances within 4 Monte
// Carlo standard errors, and the chains have converged (R-hat < 1.05).
func TestESSGPRegression(t *testing.T) {
	g := newGP(t, 8)
	res, err := RunESS(context.Background(), g.problem(), Settings{Samples: 3000, Chains: 4, Seed: 42})
	if err != nil || res.Status != infer.Done {
		t.Fatalf("%v %v", err, res)
	}
	for i := 0; i < 8; i++ {
		if d := math.Abs(res.Mean[i] - g.mean[i]); !(d <= 4*res.MeanSE[i]) {
			t.Errorf("mean[%d] = %.4f ± %.4f, exact %.4f", i, res.Mean[i], res.MeanSE[i], g.mean[i])
		}
		if d := math.Abs(res.Var[i] - g.cov.At(i, i)); !(d <= 4*res.VarSE[i]) {
			t.Errorf("var[%d] = %.4f ± %.4f, exact %.4f", i, res.Var[i], res.VarSE[i], g.cov.At(i, i))
		}
		if res.RHat[i] > 1.05 || res.ESS[i] < 500 {
			t.Errorf("coordinate %d: R-hat %.3f, ESS %.0f", i, res.RHat[i], res.ESS[i])
		}
	}
	t.Logf("ESS %v, evaluations %d", res.ESS, res.Evaluations)
}

// TestESSStandardErrorCalibration: over 40 independent seeds, the z-scores
// (estimate − exact)/MeanSE of a GP posterior mean have standard deviation
// near 1 (0.7–1.35 allows for the sampling variability of 40 replicates),
// i.e. the standard errors are neither optimistic nor grossly pessimistic.
func TestESSStandardErrorCalibration(t *testing.T) {
	g := newGP(t, 5)
	var zs []float64
	for seed := uint64(0); seed < 40; seed++ {
		res, err := RunESS(context.Background(), g.problem(), Settings{Samples: 400, Chains: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 2} {
			zs = append(zs, (res.Mean[i]-g.mean[i])/res.MeanSE[i])
			zs = append(zs, (res.Var[i]-g.cov.At(i, i))/res.VarSE[i])
		}
	}
	s := 0.0
	for _, z := range zs {
		s += z * z
	}
	sd := math.Sqrt(s / float64(len(zs)))
	t.Logf("rms z-score %.3f over %d", sd, len(zs))
	if sd < 0.7 || sd > 1.35 {
		t.Errorf("rms z-score %.3f, want ≈ 1", sd)
	}
}

// TestESSReproducible: the same seed gives bit-identical results whatever
// the number of workers; another seed differs.
func TestESSReproducible(t *testing.T) {
	g := newGP(t, 4)
	run := func(seed uint64, workers int) *Result {
		res, err := RunESS(context.Background(), g.problem(), Settings{Samples: 200, Chains: 3, Seed: seed, Workers: workers, KeepDraws: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(5, 1), run(5, 3), run(6, 2)
	for ch := range a.Draws {
		for j := range a.Draws[ch] {
			for k := range a.Draws[ch][j] {
				if a.Draws[ch][j][k] != b.Draws[ch][j][k] {
					t.Fatalf("draw %d/%d/%d differs between runs with the same seed", ch, j, k)
				}
			}
		}
	}
	if a.Mean[0] == c.Mean[0] {
		t.Error("different seeds gave identical means")
	}
	if a.Iterations != 3*(200+100) || a.Updates < a.Iterations {
		t.Errorf("Stats: %d iterations (want 3 chains × 300), %d updates", a.Iterations, a.Updates)
	}
}

// bimodal is two narrow likelihood bumps (sd 0.02) at (3, 1) and (−3, −2)
// under the prior N(0, 4 I).
func bimodal() Problem {
	bump := func(w []float64, a, b float64) float64 {
		return -((w[0]-a)*(w[0]-a) + (w[1]-b)*(w[1]-b)) / (2 * 0.02 * 0.02)
	}
	ll := func(w []float64) float64 {
		a, b := bump(w, 3, 1), bump(w, -3, -2)
		m := math.Max(a, b)
		return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
	}
	return Problem{Mean: []float64{0, 0}, Cov: mat.NewSymDense(2, []float64{4, 0, 0, 4}), LogLik: ll}
}

// TestESSBimodalRHat: on the prior's ellipses (NoAdapt) an ellipse through
// one bump of bimodal meets the other only with probability of order 0.02²,
// so chains started in different bumps stay there and split R-hat flags it
// (> 2); the rank-normalised R-hat of Result, bounded for chains that do not
// overlap at all (their normal scores are the lower and upper halves), is
// above 1.5, far beyond Stan's 1.01. The GP test shows ≈ 1 when converged.
func TestESSBimodalRHat(t *testing.T) {
	init := [][]float64{{3, 1}, {-3, -2}, {3, 1}, {-3, -2}}
	res, err := RunESS(context.Background(), bimodal(), Settings{Samples: 1000, Chains: 4, Seed: 1, Init: init, NoAdapt: true, KeepDraws: true})
	if err != nil {
		t.Fatal(err)
	}
	for j, r := range res.RHat {
		per := make([][]float64, len(res.Draws))
		for c := range per {
			per[c] = res.Draws[c][j]
		}
		split := SplitRHat(per)
		t.Logf("coordinate %d: split R-hat %.3g, rank-normalised %.3g", j, split, r)
		if split < 2 || r < 1.5 {
			t.Errorf("coordinate %d: split R-hat %.3f (want > 2), rank-normalised %.3f (want > 1.5) with chains in different modes", j, split, r)
		}
	}
}

// TestESSAdaptedBimodal: the adapted ellipses are centred between the
// bumps of bimodal, so the move to θ = π reflects one bump onto the other
// and the chains visit both. The fraction of draws in the bump at (3, 1)
// matches its posterior weight within 4 Monte Carlo standard errors: each
// bump is N(c_k, s² I) times the prior, so its weight is proportional to
// N(c_k; 0, (4 + s²) I) and p_1 = 1 / (1 + exp(−(13 − 10) / (2 (4 + s²)))).
func TestESSAdaptedBimodal(t *testing.T) {
	init := [][]float64{{3, 1}, {-3, -2}, {3, 1}, {-3, -2}}
	res, err := RunESS(context.Background(), bimodal(), Settings{Samples: 4000, Chains: 4, Seed: 1, Init: init, KeepDraws: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := res.Expect(func(w []float64) float64 {
		if w[0] > 0 {
			return 1
		}
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	want := 1 / (1 + math.Exp(-3/(2*(4+0.02*0.02))))
	t.Logf("p(bump 1) = %.4f ± %.4f (ESS %.0f, R-hat %.3f), exact %.4f", s.Mean, s.MeanSE, s.ESS, s.RHat, want)
	if !(math.Abs(s.Mean-want) <= 4*s.MeanSE) {
		t.Errorf("p(bump 1) = %.4f ± %.4f, exact %.4f", s.Mean, s.MeanSE, want)
	}
}

// TestESSCancel: a canceled context ends the run with infer.Canceled; a
// panicking log-likelihood with infer.Failed and an error.
func TestESSCancel(t *testing.T) {
	g := newGP(t, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := RunESS(ctx, g.problem(), Settings{})
	if err == nil || res == nil || res.Status != infer.Canceled {
		t.Fatalf("want Canceled, got %v %v", res, err)
	}
	p := g.problem()
	p.LogLik = func([]float64) float64 { panic("boom") }
	if res, err := RunESS(context.Background(), p, Settings{}); err == nil || res.Status != infer.Failed {
		t.Errorf("panicking loglik: want Failed, got %v %v", res, err)
	}
}

// TestESSSingularPrior: a rank-deficient prior (duplicate GP input) is
// sampled with a small diagonal jitter, reported in Jitter and Message; the
// duplicate coordinates stay equal to within the jitter's scale.
func TestESSSingularPrior(t *testing.T) {
	k := mat.NewSymDense(3, []float64{1, 1, 0.5, 1, 1, 0.5, 0.5, 0.5, 1})
	p := Problem{Mean: make([]float64, 3), Cov: k, LogLik: func(f []float64) float64 { return -0.5 * (f[2] - 1) * (f[2] - 1) }}
	res, err := RunESS(context.Background(), p, Settings{Samples: 200, Seed: 1, KeepDraws: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jitter <= 0 || res.Jitter > 1e-6 || res.Message == "" {
		t.Fatalf("jitter %g, message %q", res.Jitter, res.Message)
	}
	for c := range res.Draws {
		for i, a := range res.Draws[c][0] {
			if d := math.Abs(a - res.Draws[c][1][i]); !(d <= 1e-3) {
				t.Fatalf("duplicate coordinates differ by %g", d)
			}
		}
	}
	bad := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if _, err := RunESS(context.Background(), Problem{Mean: make([]float64, 2), Cov: bad, LogLik: p.LogLik}, Settings{}); err == nil {
		t.Error("indefinite prior accepted")
	}
}

// TestKeptDrawsBounded: runs whose kept draws would exceed
// infer.KeptDrawsLimit (the memory budget) are refused before anything is
// allocated: 1e12 samples, and one sample per chain more than the limit.
func TestKeptDrawsBounded(t *testing.T) {
	g := newGP(t, 4)
	over := infer.KeptDrawsLimit()/4 + 1 // 4 chains (the default) of one quantity
	for _, n := range []int{1e12, over} {
		if _, err := RunESS(context.Background(), g.problem(), Settings{Samples: n}); err == nil || !strings.Contains(err.Error(), "memory budget") {
			t.Errorf("ESS with %d samples: %v", n, err)
		}
		if _, err := RunGibbs(context.Background(), isingPair(1), GibbsSettings{Samples: n}); err == nil || !strings.Contains(err.Error(), "memory budget") {
			t.Errorf("Gibbs with %d samples: %v", n, err)
		}
	}
}
