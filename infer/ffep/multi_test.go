package ffep

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/stdlib/loss"
)

// diagGauss is the factorised Gaussian log f(θ) = c − Σ (θ_i − a_i)²/(2 b_i).
type diagGauss struct {
	a, b []float64
	c    float64
}

func (g diagGauss) LogF(th []float64) float64 {
	v := g.c
	for i := range th {
		v -= (th[i] - g.a[i]) * (th[i] - g.a[i]) / (2 * g.b[i])
	}
	return v
}

func (g diagGauss) Derivs(th, grad, h []float64) float64 {
	for i := range th {
		grad[i] = -(th[i] - g.a[i]) / g.b[i]
		h[i] = -1 / g.b[i]
	}
	return g.LogF(th)
}

// TestFactorisedGaussianExactD: for a factorised Gaussian factor in d = 6,
// LA, QLA and VQ return the factor itself as the site (natural parameters
// λ_i = 1/b_i, η_i = a_i/b_i, to 1e-9) and the exact log Z (roche §2.1, §2.3).
func TestFactorisedGaussianExactD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d = 6
	f := diagGauss{a: make([]float64, d), b: make([]float64, d), c: 0.7}
	mu, sd := make([]float64, d), make([]float64, d)
	wantLogZ := f.c
	for i := range d {
		f.a[i], f.b[i] = rng.NormFloat64(), 0.2+2*rng.Float64()
		mu[i], sd[i] = rng.NormFloat64(), 0.3+rng.Float64()
		s2 := sd[i] * sd[i]
		wantLogZ += 0.5*math.Log(f.b[i]/(s2+f.b[i])) - (mu[i]-f.a[i])*(mu[i]-f.a[i])/(2*(s2+f.b[i]))
	}
	for _, sc := range []Scheme{{Kind: Laplace, Tol: 1e-10}, {Kind: QuickLaplace}, {Kind: VQ, Tol: 1e-10}} {
		w := newWork(d)
		if err := w.compute(sc, f, mu, sd); err != nil {
			t.Fatalf("%v: %v", sc, err)
		}
		for i := range d {
			lam, eta := w.s.natural(i, mu[i], sd[i])
			if !scalar.EqualWithinAbsOrRel(lam, 1/f.b[i], 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(eta, f.a[i]/f.b[i], 1e-9, 1e-9) {
				t.Errorf("%v coord %d: site (%g, %g), want (%g, %g)", sc, i, lam, eta, 1/f.b[i], f.a[i]/f.b[i])
			}
		}
		if lz, err := w.s.logZ(); err != nil || !scalar.EqualWithinAbsOrRel(lz, wantLogZ, 1e-9, 1e-9) {
			t.Errorf("%v: log Z %g (%v), want %g", sc, lz, err, wantLogZ)
		}
	}
}

func randomBatch(rng *rand.Rand, s, d int, l loss.Loss) *loss.Batch {
	b := &loss.Batch{Beta: 1, Loss: l, X: make([][]float64, s), Y: make([]float64, s)}
	for k := range s {
		b.X[k] = make([]float64, d)
		for j := range d {
			b.X[k][j] = rng.NormFloat64() / math.Sqrt(float64(d))
		}
		b.Y[k] = float64(2*rng.IntN(2) - 1)
	}
	return b
}

// TestVQInterpolatesD: in d dimensions the VQ minimiser of eq. 10 satisfies
// g(θ_j) = f(θ_j) at all 2d+1 points (package comment), so it must equal the
// closed-form interpolation C0 = l₀, A_i = (l₊ᵢ − l₋ᵢ)/(2γ),
// B_i = (l₊ᵢ + l₋ᵢ − 2l₀)/(2γ²), γ = √(d + ½).
func TestVQInterpolatesD(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, l := range []loss.Loss{loss.Logistic{}, loss.Hinge{}, loss.Quasi01{Eps: 0.1}} {
		const d = 12
		f := randomBatch(rng, 10, d, l)
		mu, sd := make([]float64, d), make([]float64, d)
		for i := range d {
			mu[i], sd[i] = 0.5*rng.NormFloat64(), 0.5+2*rng.Float64()
		}
		w := newWork(d)
		// Cold start: Newton from the constant site, so that the result
		// is independent of the interpolation formula below.
		if err := w.compute(Scheme{Kind: VQ, ColdStart: true}, f, mu, sd); err != nil {
			t.Fatalf("%s: %v", l.Name(), err)
		}
		t.Logf("%s: cold-start Newton took %d iterations", l.Name(), w.iters)
		g := gamma(d)
		th := append([]float64(nil), mu...)
		l0 := f.LogF(th)
		if !scalar.EqualWithinAbsOrRel(w.s.C0, l0, 1e-7, 1e-7) {
			t.Errorf("%s: C0 %g, want %g", l.Name(), w.s.C0, l0)
		}
		for i := range d {
			th[i] = mu[i] + g*sd[i]
			lp := f.LogF(th)
			th[i] = mu[i] - g*sd[i]
			lm := f.LogF(th)
			th[i] = mu[i]
			a, b := (lp-lm)/(2*g), (lp+lm-2*l0)/(2*g*g)
			if !scalar.EqualWithinAbsOrRel(w.s.A[i], a, 1e-7, 1e-6) || !scalar.EqualWithinAbsOrRel(w.s.B[i], b, 1e-7, 1e-6) {
				t.Errorf("%s coord %d: (A, B) = (%g, %g), interpolation (%g, %g)", l.Name(), i, w.s.A[i], w.s.B[i], a, b)
			}
		}
	}
}

// TestNewtonStepDense: the block-arrow Cholesky solve equals a dense solve
// (gonum mat.Cholesky) of the Hessian built entry by entry from eq. 11.
func TestNewtonStepDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d = 5
	w := newWork(d)
	g := gamma(d)
	w.l0 = rng.Float64()
	for i := range d {
		w.lp[i], w.lm[i] = rng.Float64(), rng.Float64()
		w.s.A[i], w.s.B[i] = rng.NormFloat64(), 0.3*rng.NormFloat64()
	}
	a0 := 0.2
	if _, _, err := w.newtonStep(a0, g); err != nil {
		t.Fatal(err)
	}
	n := 2*d + 1
	H := mat.NewSymDense(n, nil)
	grad := mat.NewVecDense(n, nil)
	phi := make([]float64, n)
	addPoint := func(wt, z float64, i int, fv float64) { // z at coordinate i (i < 0: centre)
		clear(phi)
		phi[0] = 1
		if i >= 0 {
			phi[1+i], phi[1+d+i] = z, z*z
		}
		s := 0.0
		s += a0
		if i >= 0 {
			s += w.s.A[i]*z + w.s.B[i]*z*z
		}
		e := math.Exp(s)
		for r := range n {
			grad.SetVec(r, grad.AtVec(r)+wt*(e-fv)*phi[r])
			for c := r; c < n; c++ {
				H.SetSym(r, c, H.At(r, c)+wt*e*phi[r]*phi[c])
			}
		}
	}
	w0, wpm := 1-float64(d)/(g*g), 1/(2*g*g)
	addPoint(w0, 0, -1, w.l0)
	for i := range d {
		addPoint(wpm, g, i, w.lp[i])
		addPoint(wpm, -g, i, w.lm[i])
	}
	var ch mat.Cholesky
	if !ch.Factorize(H) {
		t.Fatal("dense Hessian not PD")
	}
	var x mat.VecDense
	grad.ScaleVec(-1, grad)
	if err := ch.SolveVecTo(&x, grad); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want float64) {
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-10, 1e-9) {
			t.Errorf("%s: structured %g, dense %g", name, got, want)
		}
	}
	check("a0", w.dA[0], x.AtVec(0))
	for i := range d {
		check("a", w.dA[i+1], x.AtVec(1+i))
		check("b", w.dB[i+1], x.AtVec(1+d+i))
	}
}

// linearFactor is f(θ) = 2 + Σ c_i (θ_i − μ_i)/σ_i (positive at the GQ points).
type linearFactor struct{ mu, sd, c []float64 }

func (f linearFactor) LogF(th []float64) float64 {
	v := 2.0
	for i := range th {
		v += f.c[i] * (th[i] - f.mu[i]) / f.sd[i]
	}
	return math.Log(v)
}

func (f linearFactor) Derivs(th, g, h []float64) float64 { panic("values only") }

// TestGQPrecision3D: in d = 4 the precision-3 rule matches the exact moments
// of a factor linear in θ: Z = 2, E[z_i] = c_i/2, E[z_i²] = 1, so the
// tilted mean is μ_i + σ_i c_i/2 and the variance σ_i²(1 − c_i²/4).
func TestGQPrecision3D(t *testing.T) {
	const d = 4
	f := linearFactor{mu: []float64{0.1, -1, 2, 0}, sd: []float64{1, 0.5, 2, 3}, c: []float64{0.1, -0.2, 0.05, 0.15}}
	w := newWork(d)
	if err := w.compute(Scheme{Kind: GQ}, f, f.mu, f.sd); err != nil {
		t.Fatal(err)
	}
	if lz, _ := w.s.logZ(); !scalar.EqualWithinAbsOrRel(lz, math.Log(2), 1e-12, 1e-12) {
		t.Errorf("log Z %g, want log 2", lz)
	}
	for i := range d {
		p := 1 - 2*w.s.B[i]
		mean := f.mu[i] + f.sd[i]*w.s.A[i]/p
		v := f.sd[i] * f.sd[i] / p
		if !scalar.EqualWithinAbsOrRel(mean, f.mu[i]+f.sd[i]*f.c[i]/2, 1e-12, 1e-12) ||
			!scalar.EqualWithinAbsOrRel(v, f.sd[i]*f.sd[i]*(1-f.c[i]*f.c[i]/4), 1e-12, 1e-12) {
			t.Errorf("coord %d: mean %g var %g", i, mean, v)
		}
	}
}
