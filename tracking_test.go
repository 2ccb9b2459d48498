package fg_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	fg "github.com/fg-infer/fg"
)

// kalmanSmoother is the Kalman filter and Rauch–Tung–Striebel smoother of
// x[0] ~ N(m0, P0), x[t] = A x[t-1] + N(0, Q), y[t] = H x[t] + N(0, r I),
// written out independently of fg: the smoothed means and covariances and
// log p(y) by the prediction-error decomposition.
func kalmanSmoother(A, Q, H *mat.Dense, r float64, m0 []float64, P0 *mat.Dense, ys [][]float64) ([]*mat.VecDense, []*mat.Dense, float64) {
	T, d := len(ys), len(m0)
	mp, Pp := make([]*mat.VecDense, T), make([]*mat.Dense, T) // predicted
	mf, Pf := make([]*mat.VecDense, T), make([]*mat.Dense, T) // filtered
	logp := 0.0
	for t := 0; t < T; t++ {
		if t == 0 {
			mp[t], Pp[t] = mat.NewVecDense(d, append([]float64(nil), m0...)), mat.DenseCopyOf(P0)
		} else {
			mp[t] = mat.NewVecDense(d, nil)
			mp[t].MulVec(A, mf[t-1])
			var ap mat.Dense
			ap.Mul(A, Pf[t-1])
			Pp[t] = mat.NewDense(d, d, nil)
			Pp[t].Mul(&ap, A.T())
			Pp[t].Add(Pp[t], Q)
		}
		k := len(ys[t])
		var hp, S mat.Dense
		hp.Mul(H, Pp[t])
		S.Mul(&hp, H.T())
		for i := 0; i < k; i++ {
			S.Set(i, i, S.At(i, i)+r)
		}
		var innov mat.VecDense
		innov.MulVec(H, mp[t])
		innov.SubVec(mat.NewVecDense(k, ys[t]), &innov)
		var ch mat.Cholesky
		ch.Factorize(mat.NewSymDense(k, S.RawMatrix().Data))
		var sol mat.VecDense
		ch.SolveVecTo(&sol, &innov)
		logp += -0.5*float64(k)*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(&innov, &sol)
		var Kt, Kg mat.Dense // gain = P Hᵀ S⁻¹ = (S⁻¹ H P)ᵀ
		ch.SolveTo(&Kt, &hp)
		Kg.CloneFrom(Kt.T())
		mf[t] = mat.NewVecDense(d, nil)
		mf[t].MulVec(&Kg, &innov)
		mf[t].AddVec(mf[t], mp[t])
		var kh mat.Dense
		kh.Mul(&Kg, &hp)
		Pf[t] = mat.NewDense(d, d, nil)
		Pf[t].Sub(Pp[t], &kh)
	}
	ms, Ps := make([]*mat.VecDense, T), make([]*mat.Dense, T)
	ms[T-1], Ps[T-1] = mf[T-1], Pf[T-1]
	for t := T - 2; t >= 0; t-- {
		// G = P_f Aᵀ P_p[t+1]⁻¹, by a solve: P_p G ᵀ = A P_f.
		var af mat.Dense
		af.Mul(A, Pf[t])
		var chp mat.Cholesky
		chp.Factorize(mat.NewSymDense(d, symmetrize(Pp[t+1])))
		var Gt mat.Dense
		chp.SolveTo(&Gt, &af)
		G := mat.DenseCopyOf(Gt.T())
		var dm mat.VecDense
		dm.SubVec(ms[t+1], mp[t+1])
		ms[t] = mat.NewVecDense(d, nil)
		ms[t].MulVec(G, &dm)
		ms[t].AddVec(ms[t], mf[t])
		var dP, gd mat.Dense
		dP.Sub(Ps[t+1], Pp[t+1])
		gd.Mul(G, &dP)
		Ps[t] = mat.NewDense(d, d, nil)
		Ps[t].Mul(&gd, G.T())
		Ps[t].Add(Ps[t], Pf[t])
	}
	return ms, Ps, logp
}

// trackingKalman is kalmanSmoother on examples/tracking.fg's model
// (q = 0.05, r = 0.25, x[0] ~ N((0, 0, 1, 0.5), diag(10, 10, 1, 1))).
func trackingKalman(ys [][]float64) ([]*mat.VecDense, []*mat.Dense, float64) {
	const q, r = 0.05, 0.25
	A := mat.NewDense(4, 4, []float64{1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1})
	Q := mat.NewDense(4, 4, []float64{1.0 / 3, 0, 0.5, 0, 0, 1.0 / 3, 0, 0.5, 0.5, 0, 1, 0, 0, 0.5, 0, 1})
	Q.Scale(q, Q)
	H := mat.NewDense(2, 4, []float64{1, 0, 0, 0, 0, 1, 0, 0})
	P0 := mat.NewDense(4, 4, []float64{10, 0, 0, 0, 0, 10, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	return kalmanSmoother(A, Q, H, r, []float64{0, 0, 1, 0.5}, P0, ys)
}

func symmetrize(P *mat.Dense) []float64 {
	d, _ := P.Dims()
	out := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			out[i*d+j] = 0.5 * (P.At(i, j) + P.At(j, i))
		}
	}
	return out
}

// TestTrackingKalman: examples/tracking.fg, a 2-D constant-velocity model
// written with vector conditionals x[t] ~ mvnormal(A @ x[t-1], Q) and
// observations y[t] ~ normal(H @ x[t], r), gives under ep and exact the
// Kalman smoother's marginal means and variances and log p(y) (1e-9).
func TestTrackingKalman(t *testing.T) {
	m, err := fg.Load("examples/tracking.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background(), fg.Only("ep", "exact"))
	if err != nil {
		t.Fatal(err)
	}
	ys := [][]float64{{-0.128, 0.256}, {1.533, 0.681}, {1.062, 1.378}, {2.394, 1.261}, {3.578, 1.833},
		{3.706, 1.455}, {4.529, 1.592}, {5.81, 1.754}, {6.284, 2.576}, {7.053, 3.743},
		{7.21, 3.457}, {7.564, 2.817}, {5.694, 2.688}, {7.388, 4.158}, {7.056, 4.798},
		{5.906, 4.861}, {6.765, 6.433}, {7.944, 7.021}, {7.849, 7.845}, {9.042, 8.149}}
	ms, Ps, logp := trackingKalman(ys)
	for _, label := range []string{"ep", "exact"} {
		rr := res.Get(label)
		if !rr.Status().OK() {
			t.Fatalf("%s: %s %s", label, rr.Status(), rr.Message())
		}
		for ti := range ys {
			for k := 0; k < 4; k++ {
				mean, _ := rr.Mean("x", 4*ti+k)
				v, _ := rr.Variance("x", 4*ti+k)
				if !(math.Abs(mean-ms[ti].AtVec(k)) <= 1e-9) || !(math.Abs(v-Ps[ti].At(k, k)) <= 1e-9) {
					t.Errorf("%s x[%d, %d] = %.12g ± %.12g, Kalman smoother %.12g ± %.12g", label, ti, k, mean, v, ms[ti].AtVec(k), Ps[ti].At(k, k))
				}
			}
		}
		if z, ok := rr.LogZ(); !ok || !(math.Abs(z-logp) <= 1e-9) {
			t.Errorf("%s log Z = %.12g, Kalman log p(y) = %.12g", label, z, logp)
		}
	}
	t.Logf("x[0] = %.12f ± %.12f, x[10, 2] = %.12f ± %.12f, x[19, 1] = %.12f ± %.12f, log p(y) = %.12f",
		ms[0].AtVec(0), Ps[0].At(0, 0), ms[10].AtVec(2), Ps[10].At(2, 2), ms[19].AtVec(1), Ps[19].At(1, 1), logp)
}

// TestTrackingMCMC: mcmc on examples/tracking.fg (a chain of vector
// states with Gaussian observations only, so particle Gibbs draws the
// Gaussian posterior exactly at every sweep) agrees with the Kalman
// smoother at every element of every step: means within 4·sd/√2000 and
// variances within 4·var·√(2/2000), four Monte Carlo standard errors at
// an ESS of half the 4 × 1000 draws (exact draws have an ESS near the
// draws); no warning, so R-hat ≤ 1.01 and bulk ESS ≥ 400.
func TestTrackingMCMC(t *testing.T) {
	src, err := os.ReadFile("examples/tracking.fg")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	text = text[:strings.Index(text, "\ninfer ep\n")] + "\ninfer mcmc { samples = 1000, seed = 1 }\n"
	r := runSource(t, text).All()[0]
	if w := r.Warnings(); len(w) > 0 || !r.Status().OK() {
		t.Fatalf("%s %s, warnings %v", r.Status(), r.Message(), w)
	}
	ys := [][]float64{{-0.128, 0.256}, {1.533, 0.681}, {1.062, 1.378}, {2.394, 1.261}, {3.578, 1.833},
		{3.706, 1.455}, {4.529, 1.592}, {5.81, 1.754}, {6.284, 2.576}, {7.053, 3.743},
		{7.21, 3.457}, {7.564, 2.817}, {5.694, 2.688}, {7.388, 4.158}, {7.056, 4.798},
		{5.906, 4.861}, {6.765, 6.433}, {7.944, 7.021}, {7.849, 7.845}, {9.042, 8.149}}
	ms, Ps, _ := trackingKalman(ys)
	const ess = 2000
	for ti := range ys {
		for k := 0; k < 4; k++ {
			mean, _ := r.Mean("x", 4*ti+k)
			v, _ := r.Variance("x", 4*ti+k)
			wm, wv := ms[ti].AtVec(k), Ps[ti].At(k, k)
			if !(math.Abs(mean-wm) <= 4*math.Sqrt(wv/ess)) || !(math.Abs(v-wv) <= 4*wv*math.Sqrt(2.0/ess)) {
				t.Errorf("mcmc x[%d, %d] = %.4g ± %.4g, Kalman smoother %.4g ± %.4g", ti, k, mean, v, wm, wv)
			}
		}
	}
}

// TestMVNormalLatentMean: a whole latent with an mvnormal prior whose mean
// is a latent (f ~ mvnormal(mu, K)) is the model f = mu + g with
// g ~ mvnormal(0, K): the same posterior of mu and log Z (1e-9, exact).
func TestMVNormalLatentMean(t *testing.T) {
	const head = "model mvmean\ndata y: real[3] = [0.4, 1.3, -0.2]\ndata K = [[1, 0.6, 0.2], [0.6, 1, 0.5], [0.2, 0.5, 1]]\nlatent mu: real ~ normal(0, 4)\n"
	a := runSource(t, head+"latent f: real[3] ~ mvnormal(mu, K)\ny ~ normal(f, 0.5)\ninfer exact\n").All()[0]
	b := runSource(t, head+"latent g: real[3] ~ mvnormal(0, K)\ny ~ normal(g + mu, 0.5)\ninfer exact\n").All()[0]
	ma, _ := a.Mean("mu", 0)
	mb, _ := b.Mean("mu", 0)
	va, _ := a.Variance("mu", 0)
	vb, _ := b.Variance("mu", 0)
	za, _ := a.LogZ()
	zb, _ := b.LogZ()
	if !(math.Abs(ma-mb) <= 1e-9) || !(math.Abs(va-vb) <= 1e-9) || !(math.Abs(za-zb) <= 1e-9) {
		t.Errorf("mu %g ± %g, log Z %g; reparametrised mu %g ± %g, log Z %g", ma, va, za, mb, vb, zb)
	}
}
