package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// randomWork is a relaxed line-search problem over r variables with the
// given state counts: log tilted base and relaxation statistic s drawn at
// scale w (s is a sum of per-variable log messages, as in relaxedSetup).
func randomWork(rng *rand.Rand, card []int, w float64) *relaxedWork {
	coff := []int{0}
	n := 1
	for _, c := range card {
		coff = append(coff, coff[len(coff)-1]+c)
		n *= c
	}
	logm := make([]float64, coff[len(card)])
	for k := range logm {
		logm[k] = w * rng.NormFloat64()
	}
	wk := &relaxedWork{base: make([]float64, n), s: make([]float64, n), lq: make([]float64, n), coff: coff, r: len(card)}
	state := make([]int, len(card))
	for idx := range wk.base {
		wk.base[idx] = w * rng.NormFloat64()
		for k := range card {
			wk.s[idx] += logm[coff[k]+state[k]]
		}
		odometer(state, coff)
	}
	return wk
}

// TestRelaxedSlopeAgainstDifferences: the exact derivative that eval
// returns, Q'(b) = Cov(s, log q̂_b − Σ_j log q_j) + C, equals a
// Richardson-extrapolated central difference of eval's Q (step 10⁻³,
// truncation O(h⁴) ~ 1e-12) to 1e-8 relative plus 1e-11 absolute (Q's
// rounding, ~1e-15, over the step), on 200 random factors of 2–3 variables
// with 2–3 states and b ∈ (0, 1).
func TestRelaxedSlopeAgainstDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	const pen = 0.1
	for n := 0; n < 200; n++ {
		card := []int{2 + rng.IntN(2), 2 + rng.IntN(2)}
		if n%2 == 1 {
			card = append(card, 2+rng.IntN(2))
		}
		w := randomWork(rng, card, 0.3+2*rng.Float64())
		b := 0.02 + 0.96*rng.Float64()
		q := func(x float64) float64 { v, _ := w.eval(x, pen); return v }
		d := func(h float64) float64 { return (q(b+h) - q(b-h)) / (2 * h) }
		const h = 1e-3
		fd := (4*d(h/2) - d(h)) / 3
		_, got := w.eval(b, pen)
		if !(math.Abs(got-fd) <= 1e-8*math.Abs(got)+1e-11) {
			t.Errorf("factor %d (card %v) b %.4f: Q' exact %.12g, difference %.12g", n, card, b, got, fd)
		}
	}
}

// TestRelaxedBPLineSearchStationary: for every factor of a relaxed-BP run
// on strong couplings (4×4 torus, scale 3, C = 0.1), after each of the
// first 30 passes (and likewise on three more tori of scales 1, 5, 2), the weight the line search returns is stationary,
// |Q'(b)| ≤ 1e-8·C, or sits at a boundary with the right sign (b = 0 with
// Q'(0) ≥ 0, b = 1 with Q'(1) ≤ 0).
func TestRelaxedBPLineSearchStationary(t *testing.T) {
	interior := 0
	for _, cs := range []struct {
		seed uint64
		w    float64
	}{{2, 3}, {5, 1}, {7, 5}, {9, 2}} {
		interior += stationaryRun(t, cs.seed, cs.w)
	}
	if interior == 0 {
		t.Fatal("no interior weight: the test checks nothing")
	}
	t.Logf("%d interior weights checked", interior)
}

func stationaryRun(t *testing.T, seed uint64, w float64) int {
	g := loopyGraph(rand.New(rand.NewPCG(seed, 3)), 4, w)
	p, err := NewProblem(g)
	if err != nil {
		t.Fatal(err)
	}
	const pen = 0.1
	s := Settings{infer.Settings{Divergence: infer.RelaxedKL{C: pen}, Tol: 1e-12, MaxIter: 5000}}
	en, _ := newEngine(p, &s, true)
	sc, _ := newScheduler(en, &s)
	interior := 0
	for it := 0; it < 30; it++ {
		sc.pass()
		for a := int32(0); int(a) < p.NumFactors(); a++ {
			if p.fstart.at(a+1)-p.fstart.at(a) < 2 {
				continue
			}
			en.cavities(a, 0)
			b := en.lineSearch(a)
			_, d := en.relaxedSetup(a).eval(b, pen)
			switch {
			case b == 0:
				if d < 0 {
					t.Errorf("seed %d pass %d factor %d: b = 0, Q'(0) = %g < 0", seed, it, a, d)
				}
			case b == 1:
				if d > 0 {
					t.Errorf("seed %d pass %d factor %d: b = 1, Q'(1) = %g > 0", seed, it, a, d)
				}
			default:
				interior++
				if !(math.Abs(d) <= 1e-8*pen) {
					t.Errorf("seed %d pass %d factor %d: b = %.12g, Q'(b) = %.3g", seed, it, a, b, d)
				}
			}
		}
	}
	return interior
}

// TestRelaxedBPConvergesTightly: relaxed BP with relaxation active meets a
// 1e-12 belief tolerance (the bisection on the exact Q' locates b to
// rounding, so no line-search jitter limits R).
func TestRelaxedBPConvergesTightly(t *testing.T) {
	for _, seed := range []uint64{2, 6, 11} {
		g := loopyGraph(rand.New(rand.NewPCG(seed, 3)), 4, 1.5)
		res, err := Run(context.Background(), g, Settings{infer.Settings{Divergence: infer.RelaxedKL{C: 0.1}, MaxIter: 20000, Tol: 1e-12}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range res.B {
			if b > 0 {
				n++
			}
		}
		t.Logf("seed %d: %v after %d passes, %d of %d factors relaxed", seed, res.Status, res.Iterations, n, len(res.B))
		if n == 0 {
			t.Errorf("seed %d: no factor relaxed", seed)
		}
		if res.Status != infer.Converged {
			t.Errorf("seed %d: %v after %d passes (%s)", seed, res.Status, res.Iterations, res.Message)
		}
	}
}
