package ep

import (
	"math/big"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// TestSpamSiteSpaceMeanAccuracy: from the same converged spam sites
// (M = 3067, N = 58), the site-space path's weight means (μ_w = K Aᵀ α) and
// predictions (PredictLinear, Predict) equal μ_w = (I + Aᵀ T A)⁻¹ Aᵀ ν̃
// solved in 256-bit arithmetic to 1e-10. With α formed as ν̃ − T μ_f the
// cancellation, summed over the 3067 sites, left them ~1e-9 off (and
// TestSpamWeightSpace failing); the weight-space path is checked too.
func TestSpamSiteSpaceMeanAccuracy(t *testing.T) {
	p, _, _ := spamProblem(t)
	s := Settings{Settings: infer.Settings{Schedule: infer.Sequential, Tol: 1e-9, MaxIter: 500}}
	sites := run(t, p, s).Sites
	m, n := len(p.Sites), p.Cov.SymmetricDim()
	A := mat.NewDense(m, n, nil)
	for i, st := range p.Sites {
		A.SetRow(i, st.Proj)
	}
	ref := bigWeightMean(A, sites)
	Xs := randInputs(7, n, 99)
	pref := make([]float64, 7)
	for j := range pref {
		pref[j] = dot(Xs.RawRowView(j), ref)
	}
	var Ks mat.Dense
	Ks.Mul(Xs, p.Cov)
	for _, mode := range []pathMode{sitePath, weightPath} {
		s.space = mode
		r, _ := newRule(nil, 1)
		e, err := newEngine(p, s, r)
		if err != nil {
			t.Fatal(err)
		}
		copy(e.sites, sites)
		res := e.finish(&Result{}, infer.Converged, "")
		if res.Status != infer.Converged {
			t.Fatalf("path %d: %v %s", mode, res.Status, res.Message)
		}
		close(t, "Mean", res.Mean, ref, 1e-10)
		mu, _, err1 := res.PredictLinear(Xs)
		mu2, _, err2 := res.Predict(&Ks, make([]float64, 7), nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		close(t, "PredictLinear mean", mu, pref, 1e-10)
		close(t, "Predict mean", mu2, pref, 1e-10)
	}
}

// bigWeightMean returns μ_w = (I + Aᵀ T A)⁻¹ Aᵀ ν̃ (prior N(0, I)) for the
// given sites (bigWeightPosterior).
func bigWeightMean(A *mat.Dense, sites []families.Gaussian) []float64 {
	mean, _ := bigWeightPosterior(A, sites, false)
	return mean
}

// bigWeightPosterior returns μ_w = (I + Aᵀ T A)⁻¹ Aᵀ ν̃ (prior N(0, I)) for
// the given sites and, when vars is set, diag (I + Aᵀ T A)⁻¹, accumulated
// and solved (Gaussian elimination, the matrix is positive definite) in
// 256-bit floating point, then rounded to float64.
func bigWeightPosterior(A *mat.Dense, sites []families.Gaussian, vars bool) (mean, vr []float64) {
	m, n := A.Dims()
	nf := func(x float64) *big.Float { return new(big.Float).SetPrec(256).SetFloat64(x) }
	P := make([][]*big.Float, n)
	h := make([]*big.Float, n)
	for i := range P {
		P[i] = make([]*big.Float, n)
		for j := range P[i] {
			P[i][j] = nf(0)
		}
		P[i][i].SetFloat64(1)
		h[i] = nf(0)
	}
	tmp := nf(0)
	ta := make([]*big.Float, n)
	for k := 0; k < m; k++ {
		a := A.RawRowView(k)
		tau, nu := nf(sites[k].Prec), nf(sites[k].Shift)
		for i := range a {
			ta[i] = nf(0).Mul(tau, nf(a[i]))
			h[i].Add(h[i], tmp.Mul(nu, nf(a[i])))
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				P[i][j].Add(P[i][j], tmp.Mul(ta[i], nf(a[j])))
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			P[i][j].Set(P[j][i])
		}
	}
	// The right-hand sides: h, then e_j for the variances.
	rhs := [][]*big.Float{h}
	if vars {
		for j := 0; j < n; j++ {
			e := make([]*big.Float, n)
			for i := range e {
				e[i] = nf(0)
			}
			e[j].SetFloat64(1)
			rhs = append(rhs, e)
		}
	}
	for k := 0; k < n; k++ {
		for i := k + 1; i < n; i++ {
			f := nf(0).Quo(P[i][k], P[k][k])
			for j := k; j < n; j++ {
				P[i][j].Sub(P[i][j], tmp.Mul(f, P[k][j]))
			}
			for _, b := range rhs {
				b[i].Sub(b[i], tmp.Mul(f, b[k]))
			}
		}
	}
	solve := func(b []*big.Float) []*big.Float {
		x := make([]*big.Float, n)
		for i := n - 1; i >= 0; i-- {
			x[i] = nf(0).Set(b[i])
			for j := i + 1; j < n; j++ {
				x[i].Sub(x[i], tmp.Mul(P[i][j], x[j]))
			}
			x[i].Quo(x[i], P[i][i])
		}
		return x
	}
	mean = make([]float64, n)
	for i, x := range solve(h) {
		mean[i], _ = x.Float64()
	}
	if vars {
		vr = make([]float64, n)
		for j := 0; j < n; j++ {
			vr[j], _ = solve(rhs[1+j])[j].Float64()
		}
	}
	return mean, vr
}
