package ep

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// repeatedSites is GP regression on tinyX with noise variance r where f[0]
// is observed three times (tinyY[0], 0.35, 0.2) and every other element
// once: M = 10 sites on N = 8 elements, so the weight-space path serves it.
func repeatedSites(r float64) []Site { return repeatedAt(r, 0.35, 0.2) }

// repeatedAt is repeatedSites with the two extra observations of f[0] at
// y1 and y2.
func repeatedAt(r, y1, y2 float64) []Site {
	var sites []Site
	for i, y := range tinyY {
		sites = append(sites, Site{Lik: Gaussian{Var: r}, Y: y, Index: i})
	}
	return append(sites, Site{Lik: Gaussian{Var: r}, Y: y1, Index: 0}, Site{Lik: Gaussian{Var: r}, Y: y2, Index: 0})
}

// gaussLOO is the closed form of GP regression with several Gaussian
// observations per element, leaving site `skip` out (−1: none): the
// observations of an element merge into one (noise 1/Σ r⁻¹, value their
// precision-weighted mean, and log Z gains log N of the residuals), the
// observed elements O go to gaussClosed (a Cholesky of K_OO + R), and an
// unobserved element k is predicted from them, K_kO C⁻¹ y_O and
// K_kk − K_kO C⁻¹ K_Ok. It returns log Z and the marginal of element k.
func gaussLOO(t *testing.T, K *mat.SymDense, sites []Site, skip, k int) (logZ, mean, vr float64) {
	n := K.SymmetricDim()
	prec, wsum := make([]float64, n), make([]float64, n)
	for j, s := range sites {
		if j != skip {
			r := s.Lik.(Gaussian).Var
			prec[s.Index] += 1 / r
			wsum[s.Index] += s.Y / r
		}
	}
	var obs []int
	for i := range n {
		if prec[i] > 0 {
			obs = append(obs, i)
		}
	}
	for j, s := range sites { // log N of the residuals around the merged value
		if j != skip {
			r := s.Lik.(Gaussian).Var
			d := s.Y - wsum[s.Index]/prec[s.Index]
			logZ += -0.5*math.Log(2*math.Pi*r) - 0.5*d*d/r
		}
	}
	for _, i := range obs {
		logZ += 0.5 * math.Log(2*math.Pi/prec[i])
	}
	KO := mat.NewSymDense(len(obs), nil)
	rO, yO := make([]float64, len(obs)), make([]float64, len(obs))
	pos := -1
	for a, i := range obs {
		rO[a], yO[a] = 1/prec[i], wsum[i]/prec[i]
		for b, j := range obs[a:] {
			KO.SetSym(a, a+b, K.At(i, j))
		}
		if i == k {
			pos = a
		}
	}
	z, mu, v := gaussClosed(t, KO, rO, yO, make([]float64, len(obs)))
	logZ += z
	if pos >= 0 {
		return logZ, mu[pos], v[pos]
	}
	C := mat.NewSymDense(len(obs), nil)
	C.CopySym(KO)
	kO := mat.NewVecDense(len(obs), nil)
	for a, i := range obs {
		C.SetSym(a, a, C.At(a, a)+rO[a])
		kO.SetVec(a, K.At(k, i))
	}
	var ch mat.Cholesky
	if !ch.Factorize(C) {
		t.Fatal("C not positive definite")
	}
	var ci mat.VecDense
	if err := ch.SolveVecTo(&ci, kO); err != nil {
		t.Fatal(err)
	}
	return logZ, mat.Dot(&ci, mat.NewVecDense(len(obs), yO)), K.At(k, k) - mat.Dot(&ci, kO)
}

// TestTightWeightSpace: the weight-space path's cavities at tiny noise.
// On repeatedSites, every site of f[1..7] is the only one that pins its
// element, so its cavity — the GP's prediction of f[k] from the other
// observations — has a precision ~1/K_kk next to τ̃ = 1/r, and 1/v − τ̃
// cancelled: the sequential sweep skipped those sites as improper and
// stalled from r = 1e-10 on. The engine's cavities (both schedules'
// states) now equal the leave-one-out closed form (gaussLOO, Cholesky
// factorisations of the exact Gaussian problems) to 1e-8 relative in mean
// and variance for r = 1e-3 … 1e-12, and the posterior marginals and
// log Z_EP equal the closed form to 1e-8 relative.
func TestTightWeightSpace(t *testing.T) {
	K := seGram(tinyX)
	n := len(tinyY)
	for e := 3; e <= 12; e++ {
		r := math.Pow(10, -float64(e))
		sites := repeatedSites(r)
		wantZ, _, _ := gaussLOO(t, K, sites, -1, 0)
		for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
			name := fmt.Sprintf("r=1e-%d/%v", e, sched)
			p := &Problem{Cov: K, Sites: sites}
			s := Settings{Settings: infer.Settings{Schedule: sched, Tol: 1e-9, MaxIter: 100}}
			rl, _ := newRule(nil, 1)
			eng, err := newEngine(p, s, rl)
			if err != nil {
				t.Fatal(err)
			}
			if !eng.pr.weight {
				t.Fatal("not on the weight-space path")
			}
			res := eng.loop(context.Background())
			if !convergedTo(t, name, res.Status, res.Stats.Skipped, res.HasLogZ, res.Message, res.LogZ, wantZ) {
				continue
			}
			for k := range n {
				_, m, v := gaussLOO(t, K, sites, -1, k)
				if !relClose(res.Mean[k], m, 1e-8) || !relClose(res.Var[k], v, 1e-8) {
					t.Errorf("%s: f[%d] = %.15g ± %.10g, closed form %.15g ± %.10g", name, k, res.Mean[k], res.Var[k], m, v)
				}
			}
			st, err := eng.recompute(eng.sites, false)
			if err != nil {
				t.Fatal(err)
			}
			for i, sp := range eng.sites {
				tc, nc := st.cavityAt(i, 1, sp, st.mu[i], st.sdiag[i])
				_, m, v := gaussLOO(t, K, sites, i, sites[i].Index)
				if !relClose(1/tc, v, 1e-8) || !relClose(nc/tc, m, 1e-8) {
					t.Errorf("%s: cavity of site %d N(%.15g, %.10g), leave-one-out %.15g, %.10g", name, i, nc/tc, 1/tc, m, v)
				}
			}
		}
	}
}
