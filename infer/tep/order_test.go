package tep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/infer"
)

// mixtureBPM is the data of futami §5.1: 1000 points from
// 0.05 N([1,1], 0.05 I) + 0.25 N([−1,1], 0.05 I) + 0.45 N([−1,−1], 0.05 I)
// + 0.25 N([1,−1], 0.05 I), labelled +1 for the components at x1 = +1 and
// −1 for those at x1 = −1; Bayes point machine w ~ St(ν, 0, I) in ℝ² with
// the noiseless step likelihood Θ(y wᵀx).
func mixtureBPM(n int, nu float64, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 99))
	centers := [][]float64{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}
	cum := []float64{0.05, 0.30, 0.75, 1}
	p := &Problem{Nu: nu, Scale: mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	sd := math.Sqrt(0.05)
	for i := 0; i < n; i++ {
		u, c := rng.Float64(), 0
		for u > cum[c] {
			c++
		}
		x := []float64{centers[c][0] + sd*rng.NormFloat64(), centers[c][1] + sd*rng.NormFloat64()}
		p.Sites = append(p.Sites, Site{Lik: factor.Step{}, Y: centers[c][0], Proj: x})
	}
	return p
}

// TestOrderIndependence: the t-EP fixed point does not depend on the order
// of the data (futami §5.1, ν = 10, 1000 points): the posteriors from five
// random permutations agree to 1e-6, while single-pass t-ADF's differ.
func TestOrderIndependence(t *testing.T) {
	if testing.Short() {
		t.Skip("1000-point EP with 6 orders; run without -short (TestOrderIndependenceSmall runs always)")
	}
	orderIndependence(t, 1000, 6)
}

// TestOrderIndependenceSmall is the same check with 200 points and three
// orders, for -short runs.
func TestOrderIndependenceSmall(t *testing.T) { orderIndependence(t, 200, 3) }

func orderIndependence(t *testing.T, n, orders int) {
	p := mixtureBPM(n, 10, 1)
	rng := rand.New(rand.NewPCG(5, 7))
	var ref, adfRef *Result
	var adfSpread float64
	for rep := 0; rep < orders; rep++ {
		o := &Options{}
		if rep > 0 {
			o.Order = rng.Perm(len(p.Sites))
		}
		r, err := Run(context.Background(), p, infer.Settings{Tol: 1e-12, MaxIter: 300}, o)
		if err != nil || r.Status != infer.Converged || r.Skipped != 0 {
			t.Fatalf("EP order %d: %v %v skipped %d", rep, err, r.Status, r.Skipped)
		}
		o.ADF = true
		a, err := Run(context.Background(), p, infer.Settings{}, o)
		if err != nil || a.Status != infer.Done {
			t.Fatalf("ADF: %v %v", err, a.Status)
		}
		if rep == 0 {
			ref, adfRef = r, a
			continue
		}
		for i := range ref.Mean {
			check(t, "EP mean under permutation", r.Mean[i], ref.Mean[i], 1e-6)
			for j := range ref.Mean {
				check(t, "EP scale under permutation", r.Scale.At(i, j), ref.Scale.At(i, j), 1e-6)
			}
		}
		d := math.Abs(angle(a.Mean) - angle(adfRef.Mean))
		adfSpread = math.Max(adfSpread, d)
		t.Logf("perm %d: EP boundary angle %.10f, ADF %.6f (ADF order 0: %.6f)", rep, angle(r.Mean), angle(a.Mean), angle(adfRef.Mean))
	}
	if adfSpread < 1e-3 {
		t.Errorf("ADF boundary angles differ by only %g across orders; expected order dependence", adfSpread)
	}
}

func angle(w []float64) float64 { return math.Atan2(w[1], w[0]) }

// TestSingleSiteEvidence: with one site the t-factorisation is exact by
// construction of C̃ (eq. 41), so log Z_EP must equal
// log Z1 = log ∫ St(s; ν, aᵀμ0, aᵀΣ0a) l(s)^t ds, here with k = 2 (this
// checks the k-dimensional form of Theorem 2) against quadrature.
func TestSingleSiteEvidence(t *testing.T) {
	nu := 5.0
	scale := mat.NewSymDense(2, []float64{2, 0.5, 0.5, 1})
	mu0 := []float64{0.4, -1}
	a := []float64{0.7, 1.1}
	prior, _ := tfam.NewStudentT(nu, mu0, scale)
	m, v := prior.Project(a)
	for _, s := range []Site{{Lik: factor.Step{Eps: 0.1}, Y: 1}, {Lik: factor.Probit{}, Y: -1}, {Lik: factor.Step{}, Y: 1}} {
		s.Proj = a
		p := &Problem{Nu: nu, Mean: mu0, Scale: scale, Sites: []Site{s}}
		r, err := Run(context.Background(), p, infer.Settings{Tol: 1e-13}, nil)
		if err != nil || !r.HasLogZ {
			t.Fatalf("%v %v", err, r.HasLogZ)
		}
		lp := likPow(s, tfam.TOf(nu, 2))
		z, _, _ := moments1(func(x float64) float64 { return math.Exp(stLogPdf1(x, nu, m, v)) * lp(x) }, m, math.Sqrt(v), likCuts(s, 1), 400)
		check(t, s.Lik.Name()+" log Z", r.LogZ, math.Log(z), 1e-9)
	}
}
