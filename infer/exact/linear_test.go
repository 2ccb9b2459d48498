package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/internal/testkit"
)

// randomLinear is a linear-Gaussian block with d elements and n
// observations from a seeded source: a correlated prior, random design.
func randomLinear(rng *rand.Rand, d, n int) Linear {
	g := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(0.3, g)
	p := Linear{Mean: make([]float64, d), Cov: cov, A: mat.NewDense(n, d, nil),
		Offset: make([]float64, n), Y: make([]float64, n), R: make([]float64, n)}
	for i := range d {
		cov.SetSym(i, i, cov.At(i, i)+0.5)
		p.Mean[i] = rng.NormFloat64()
	}
	for i := range n {
		for j := range d {
			p.A.Set(i, j, rng.NormFloat64())
		}
		p.Offset[i], p.Y[i], p.R[i] = 0.3*rng.NormFloat64(), 2*rng.NormFloat64(), 0.1+rng.Float64()
	}
	return p
}

func closeTo(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.12g, reference %.12g", what, got, want)
	}
}

// TestLinearForms: the observation form and the whitened precision form
// are independent computations of the same posterior; they agree to 1e-9
// at d = 7 with n = 12 observations (where RunLinear picks the precision
// form) and with the same problem forced through the observation form.
func TestLinearForms(t *testing.T) {
	p := randomLinear(rand.New(rand.NewPCG(1, 2)), 7, 12)
	res, err := RunLinear(context.Background(), p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := p.observationForm()
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "log Z", res.LogZ, obs.LogZ, 1e-9)
	for i := range p.Mean {
		closeTo(t, "mean", res.Mean[i], obs.Mean[i], 1e-9)
		for j := range p.Mean {
			closeTo(t, "cov", res.Cov.At(i, j), obs.Cov.At(i, j), 1e-9)
		}
	}
}

// TestLinearAgainstQuadrature: at d = 2 the closed form equals adaptive
// cubature of the same integrals (Run with method quad, tol 1e-8) to 1e-6.
func TestLinearAgainstQuadrature(t *testing.T) {
	for _, n := range []int{1, 5} { // observation form, precision form
		p := randomLinear(rand.New(rand.NewPCG(3, uint64(n))), 2, n)
		lin, err := RunLinear(context.Background(), p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		ll := func(w []float64) float64 {
			s := 0.0
			for i := range p.Y {
				f := p.Offset[i] + mat.Dot(p.A.RowView(i), mat.NewVecDense(2, w))
				s += -0.5*math.Log(2*math.Pi*p.R[i]) - (p.Y[i]-f)*(p.Y[i]-f)/(2*p.R[i])
			}
			return s
		}
		q, err := Run(context.Background(), Problem{Mean: p.Mean, Cov: p.Cov, LogLik: ll}, Settings{Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "log Z", lin.LogZ, q.LogZ, 1e-6)
		for i := range 2 {
			closeTo(t, "mean", lin.Mean[i], q.Mean[i], 1e-6)
			closeTo(t, "var", lin.Var[i], q.Var[i], 1e-6)
		}
	}
}

// TestLinearSingularPrior: a prior with a zero-variance direction (w₁ = w₀
// exactly) is solved in the observation form without jitter: the posterior
// keeps w₁ = w₀ and equals the one-dimensional conjugate answer.
func TestLinearSingularPrior(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	p := Linear{Mean: []float64{0, 0}, Cov: cov, A: mat.NewDense(1, 2, []float64{1, 0}),
		Offset: []float64{0}, Y: []float64{1}, R: []float64{1}}
	res, err := RunLinear(context.Background(), p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// w₀ ~ N(0, 1), y ~ N(w₀, 1): posterior N(0.5, 0.5), log Z = log N(1; 0, 2).
	for i := range 2 {
		closeTo(t, "mean", res.Mean[i], 0.5, 1e-12)
		closeTo(t, "var", res.Var[i], 0.5, 1e-12)
	}
	closeTo(t, "log Z", res.LogZ, -0.5*math.Log(4*math.Pi)-0.25, 1e-12)
	if res.Jitter != 0 {
		t.Errorf("jitter %g", res.Jitter)
	}
}

// TestLinearExpect: Expect and Draws of a closed-form result are Monte
// Carlo over exact posterior draws: E[w₀] within 5 standard errors.
func TestLinearExpect(t *testing.T) {
	p := randomLinear(rand.New(rand.NewPCG(5, 6)), 5, 3)
	res, err := RunLinear(context.Background(), p, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	vals, errs, err := res.Expect(context.Background(), []func([]float64) float64{func(w []float64) float64 { return w[0] }})
	if err != nil || !(math.Abs(vals[0]-res.Mean[0]) <= 5*errs[0]) || !(errs[0] > 0) {
		t.Errorf("E w0 = %g ± %g (%v), mean %g", vals[0], errs[0], err, res.Mean[0])
	}
	if d, err := res.Draws(10, 1); err != nil || len(d) != 10 || len(d[0]) != 5 {
		t.Errorf("draws: %v", err)
	}
}

// TestLinearTightNoise: one reading y ~ N(aᵀw + c, r) of three independent
// weights with a = (1, 1e-6, −1e-6), r = 1e-3 … 1e-13 (n < d: the
// observation form), where w₀'s posterior variance is ~1e-12 of its prior:
// Σ0 − K A Σ0 cancels there (w₀'s variance was 8e-6 relative off at
// r = 1e-12), so the covariance comes from the precision form. Against the
// closed form (testkit.GaussianSite): variances within 1e-10 relative,
// means within 1e-10 sd plus 4ε|E w|, log Z within 1e-12.
func TestLinearTightNoise(t *testing.T) {
	mu, pv, a := []float64{0.3, -0.5, 1.1}, []float64{2, 0.8, 1.5}, []float64{1, 1e-6, -1e-6}
	const c, y = 0.2, 1.3
	cov := mat.NewSymDense(3, nil)
	for i, v := range pv {
		cov.SetSym(i, i, v)
	}
	for e := 3; e <= 13; e++ {
		r := math.Pow(10, -float64(e))
		p := Linear{Mean: mu, Cov: cov, A: mat.NewDense(1, 3, a), Offset: []float64{c}, Y: []float64{y}, R: []float64{r}}
		res, err := RunLinear(context.Background(), p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		mean, vr, logZ := testkit.GaussianSite(mu, pv, a, c, y, r)
		testkit.CheckMarginals(t, fmt.Sprintf("r = %g", r), res.Mean, res.Var, mean, vr, 1e-10)
		closeTo(t, "log Z", res.LogZ, logZ, 1e-12)
	}
}
