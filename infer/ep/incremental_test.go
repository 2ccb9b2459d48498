package ep

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// maxAbsDiff is max_ij |A_ij − B_ij| over the upper triangles.
func maxAbsDiff(a, b *mat.SymDense) float64 {
	worst := 0.0
	n := a.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			worst = math.Max(worst, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return worst
}

// TestIncrementalMatchesFactorised: an Incremental run (warm sites
// inserted by rank-one updates, log det carried through the updates, no
// final factorisation) gives the log Z_EP, marginals and Σ_f of a run that
// factorises (KeepCov) to 1e-10, from flat sites and warm-started from
// the fixed point of another kernel; its result has no factorisation
// (Cov fails). The Incremental run never refreshes (Refresh −1): all of
// its 10–13 sweeps are rank-one updates. Probit GP classification with M = 60 and 300 sites
// (below and above delayMin: the insertion and the sweeps update one by
// one and delayed).
func TestIncrementalMatchesFactorised(t *testing.T) {
	for _, m := range []int{60, 300} {
		p, X, _ := probitProblem(m, 5)
		other := *p
		other.Cov = kernel.SE{Lengthscale: 0.8, Var: 1}.Matrix(X)
		s := settings(infer.Sequential, infer.KL{})
		init := run(t, &other, s).Sites
		for _, warm := range []bool{false, true} {
			q := *p
			if warm {
				q.Init = init
			}
			name := fmt.Sprintf("M = %d, warm %v", m, warm)
			s.KeepCov, s.Incremental = true, false
			want := run(t, &q, s)
			s.Incremental, s.Refresh = true, -1 // no refresh: the whole run by rank-one updates
			got := run(t, &q, s)
			s.Refresh = 0
			if !got.HasLogZ {
				t.Fatalf("%s: no log Z: %s", name, got.Message)
			}
			close(t, name+": log Z", []float64{got.LogZ}, []float64{want.LogZ}, 1e-10)
			close(t, name+": mean", got.FMean, want.FMean, 1e-10)
			close(t, name+": var", got.FVar, want.FVar, 1e-10)
			gs, ok := got.SiteCov()
			ws, _ := want.SiteCov()
			if !ok {
				t.Fatalf("%s: no Σ_f kept", name)
			}
			if d := maxAbsDiff(gs, ws); d > 1e-10 {
				t.Errorf("%s: max |Σ_incremental − Σ_factorised| = %g", name, d)
			}
			if _, err := got.Cov(); err == nil {
				t.Errorf("%s: an Incremental result has a covariance without a factorisation", name)
			}
		}
	}
}

// TestIncrementalGaussianSites: with Gaussian sites EP is exact, so an
// Incremental run's log Z_EP and marginals must equal GP regression's
// closed form (gaussClosed) to 1e-9 relative, for noise variances r from
// 1e-1 to 1e-3 (τ̃ Kf_ii up to 1e3: the running state) and 1e-8 (tight
// sites: the run factorises, and predicts).
func TestIncrementalGaussianSites(t *testing.T) {
	K := seGram(tinyX)
	n := len(tinyY)
	m0 := make([]float64, n)
	for i := range m0 {
		m0[i] = 0.2*tinyX[i] - 0.3
	}
	for _, r := range []float64{1e-1, 1e-2, 1e-3, 1e-8} {
		rs := make([]float64, n)
		sites := make([]Site, n)
		for i := range sites {
			rs[i] = r
			sites[i] = Site{Lik: Gaussian{Var: r}, Y: tinyY[i], Index: i}
		}
		wantZ, wantMu, wantVar := gaussClosed(t, K, rs, tinyY, m0)
		s := Settings{Settings: infer.Settings{Tol: 1e-9, MaxIter: 100}, Incremental: true}
		res := run(t, &Problem{Mean: m0, Cov: K, Sites: sites}, s)
		if !relClose(res.LogZ, wantZ, 1e-9) {
			t.Errorf("r = %g: log Z %.15g, closed form %.15g", r, res.LogZ, wantZ)
		}
		for i := range n {
			if !relClose(res.Mean[i], wantMu[i], 1e-9) || !relClose(res.Var[i], wantVar[i], 1e-9) {
				t.Errorf("r = %g: f[%d] = %.15g ± %.10g, closed form %.15g ± %.10g", r, i, res.Mean[i], res.Var[i], wantMu[i], wantVar[i])
			}
		}
		_, err := res.Cov()
		if tight := r*tightRatio < 1; (err == nil) != tight {
			t.Errorf("r = %g: Cov error %v; tight sites (which factorise) %v", r, err, tight)
		}
	}
}

// TestIncrementalInsertFallback: warm sites that cannot enter the prior one
// at a time — a negative site precision τ̃_0 = −2 on a unit prior variance
// (1 + τ̃_0 Kf_00 = −1) that only the next site, strongly correlated and
// precise, makes proper — fall back to a factorisation, and the run
// reaches the fixed point of a run that factorises from the start (log Z
// and marginals to 1e-10).
func TestIncrementalInsertFallback(t *testing.T) {
	p := &Problem{Cov: mat.NewSymDense(2, []float64{1, 0.9, 0.9, 1}),
		Sites: []Site{{Lik: Probit{}, Y: 1, Index: 0}, {Lik: Probit{}, Y: -1, Index: 1}},
		Init:  []families.Gaussian{{Prec: -2, Shift: 0}, {Prec: 50, Shift: -20}}}
	s := settings(infer.Sequential, infer.KL{})
	s.KeepCov = true
	want := run(t, p, s)
	s.Incremental = true
	got := run(t, p, s)
	close(t, "log Z", []float64{got.LogZ}, []float64{want.LogZ}, 1e-10)
	close(t, "mean", got.FMean, want.FMean, 1e-10)
	close(t, "var", got.FVar, want.FVar, 1e-10)
}

// BenchmarkWarmStart times the start of a warm-started sequential run on a
// probit GP (M = 200, the size of pima_ripley; 500): the posterior at the
// warm sites by a factorisation of B (recompute: Cholesky, triangular
// solve, Σ = Kf − VᵀV; 2⅓ M³ flops) and by inserting the sites into the
// prior one at a time (insertSites, Settings.Incremental: M³ flops, in
// the delayed form).
func BenchmarkWarmStart(b *testing.B) {
	for _, m := range []int{200, 500} {
		p, _, _ := probitProblem(m, 5)
		res, err := Run(context.Background(), p, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		q := *p
		q.Init = res.Sites
		for _, inc := range []bool{false, true} {
			name := fmt.Sprintf("%d/refactor", m)
			if inc {
				name = fmt.Sprintf("%d/insert", m)
			}
			b.Run(name, func(b *testing.B) {
				s := Settings{Incremental: inc}
				r, _ := settingsRule(s)
				for i := 0; i < b.N; i++ {
					e, err := newEngine(&q, s, r)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := e.start(); err != nil {
						b.Fatal(err)
					}
				}
				gflops(b, float64(m)*float64(m)*float64(m))
			})
		}
	}
}
