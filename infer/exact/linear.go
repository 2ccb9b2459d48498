package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// Linear is a linear-Gaussian block: the prior N(Mean, Cov) and
// observations y_i ~ N(a_iᵀw + Offset_i, R_i), a_i the rows of A (R_i > 0).
// Its posterior and evidence have a closed form (RunLinear).
type Linear struct {
	Mean      []float64
	Cov       *mat.SymDense
	A         *mat.Dense
	Offset, Y []float64
	R         []float64
}

// RunLinear computes the posterior of a linear-Gaussian block exactly, at
// any dimension, in one of two forms (Bishop, PRML §2.3.3; Rasmussen &
// Williams eq. 2.30 for log Z), with Cholesky factorisations and no inverse:
//
// with at most as many observations n as elements d, or a prior covariance
// Σ0 that is singular, the observation form
//
//	S = A Σ0 Aᵀ + diag R,   K = Σ0 Aᵀ S⁻¹,
//	m = m0 + K r,   Σ = Σ0 − K A Σ0,   r = y − A m0 − c,
//	log Z = log N(y; A m0 + c, S),
//
// which never factorises Σ0 (so a singular prior needs no jitter); with
// more observations, the whitened precision form (Σ0 = L Lᵀ, B = A L,
// P = I + Bᵀ R⁻¹ B, an O(d³ + n d²) computation):
//
//	m = m0 + L P⁻¹ Bᵀ R⁻¹ r,   Σ = L P⁻¹ Lᵀ,
//	log Z = −½ (n log 2π + Σ log R_i + log |P| + rᵀR⁻¹r − gᵀP⁻¹g),   g = BᵀR⁻¹r.
//
// When the observation form's Σ0 − K A Σ0 cancelled (tight: a reading
// whose noise is tiny against its prior) and Σ0 factorises, its covariance
// is replaced by the precision form's.
//
// The result has Method "gaussian", Status Done, no error estimates, and
// answers Expect and Draws by exact draws from the posterior (Expect's
// values then carry Monte Carlo standard errors).
func RunLinear(ctx context.Context, p Linear, s Settings) (*Result, error) {
	start := time.Now()
	d, n, err := p.validate()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return &Result{Method: "gaussian", Status: infer.Canceled, Message: err.Error()}, err
	}
	var chol mat.Cholesky
	var res *Result
	if n > d && chol.Factorize(p.Cov) {
		res, err = p.precisionForm(&chol)
	} else if res, err = p.observationForm(); err == nil && res.tight(p) && chol.Factorize(p.Cov) {
		var pf *Result
		if pf, err = p.precisionForm(&chol); err == nil {
			res.Cov = pf.Cov
		}
	}
	if err != nil {
		return nil, err
	}
	res.Method, res.Status, res.Seed = "gaussian", infer.Done, s.Seed
	res.Var = make([]float64, d)
	for i := range res.Var {
		res.Var[i] = res.Cov.At(i, i)
	}
	res.Runtime = time.Since(start)
	return res, nil
}

func (p Linear) validate() (d, n int, err error) {
	d = len(p.Mean)
	if d == 0 || p.Cov == nil || p.Cov.SymmetricDim() != d || p.A == nil {
		return 0, 0, errors.New("exact: linear-Gaussian problem without a prior or a design")
	}
	n, c := p.A.Dims()
	if c != d || len(p.Y) != n || len(p.R) != n || len(p.Offset) != n {
		return 0, 0, fmt.Errorf("exact: design %d×%d, %d observations, %d variances, %d offsets for d = %d", n, c, len(p.Y), len(p.R), len(p.Offset), d)
	}
	for i, r := range p.R {
		if !(r > 0) || math.IsInf(r, 1) {
			return 0, 0, fmt.Errorf("exact: observation %d has variance %g, want a finite positive variance", i, r)
		}
	}
	return d, n, nil
}

// residual is r = y − A m0 − c.
func (p Linear) residual() *mat.VecDense {
	r := mat.NewVecDense(len(p.Y), nil)
	r.MulVec(p.A, mat.NewVecDense(len(p.Mean), p.Mean))
	for i := range p.Y {
		r.SetVec(i, p.Y[i]-r.AtVec(i)-p.Offset[i])
	}
	return r
}

func (p Linear) observationForm() (*Result, error) {
	n, d := len(p.Y), len(p.Mean)
	var sa mat.Dense // Σ0 Aᵀ, d×n
	sa.Mul(p.Cov, p.A.T())
	s := mat.NewSymDense(n, nil)
	var asa mat.Dense
	asa.Mul(p.A, &sa)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(asa.At(i, j)+asa.At(j, i)))
		}
		s.SetSym(i, i, s.At(i, i)+p.R[i])
	}
	var cs mat.Cholesky
	if !cs.Factorize(s) {
		return nil, errors.New("exact: the marginal covariance of the observations A Σ0 Aᵀ + R is not positive definite")
	}
	r := p.residual()
	var alpha mat.VecDense // S⁻¹ r
	if err := cs.SolveVecTo(&alpha, r); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	mean := mat.NewVecDense(d, nil)
	mean.MulVec(&sa, &alpha)
	for i := range d {
		mean.SetVec(i, mean.AtVec(i)+p.Mean[i])
	}
	var ks mat.Dense // S⁻¹ (Σ0 Aᵀ)ᵀ, n×d
	if err := cs.SolveTo(&ks, sa.T()); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	var red mat.Dense
	red.Mul(&sa, &ks)
	cov := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			cov.SetSym(i, j, p.Cov.At(i, j)-0.5*(red.At(i, j)+red.At(j, i)))
		}
	}
	logZ := -0.5 * (float64(n)*math.Log(2*math.Pi) + cs.LogDet() + mat.Dot(r, &alpha))
	return &Result{Mean: mean.RawVector().Data, Cov: cov, LogZ: logZ}, nil
}

// tightVar is the ratio of a posterior variance to its prior variance
// below which the observation form's Σ0 − K A Σ0 has cancelled more than
// four of its digits (its error is about ε·Σ0_ii, so ε/tightVar ≈ 2e-12
// relative at the threshold).
const tightVar = 1e-4

// tight reports whether the observation form's covariance res.Cov lost
// digits to cancellation: some posterior variance is below tightVar times
// its prior variance (a reading whose noise is tiny against the prior of
// what it measures). RunLinear then takes the covariance of the precision
// form, whose Σ = L P⁻¹ Lᵀ is a sum of squares (CᵀC) and cancels nothing,
// and keeps the observation form's mean and log Z (the precision form's
// log Z subtracts gᵀP⁻¹g from rᵀR⁻¹r, both of size r²/R).
func (res *Result) tight(p Linear) bool {
	for i := range p.Mean {
		if res.Cov.At(i, i) < tightVar*p.Cov.At(i, i) {
			return true
		}
	}
	return false
}

func (p Linear) precisionForm(c0 *mat.Cholesky) (*Result, error) {
	n, d := len(p.Y), len(p.Mean)
	var l mat.TriDense
	c0.LTo(&l)
	var b mat.Dense // A L, n×d
	b.Mul(p.A, &l)
	r := p.residual()
	prec := mat.NewSymDense(d, nil) // I + Bᵀ R⁻¹ B
	bw := mat.NewDense(n, d, nil)   // R^−½ B
	rw := mat.NewVecDense(n, nil)   // R^−½ r
	quad, logR := 0.0, 0.0
	for i := range n {
		s := 1 / math.Sqrt(p.R[i])
		for j := range d {
			bw.Set(i, j, s*b.At(i, j))
		}
		rw.SetVec(i, s*r.AtVec(i))
		quad += rw.AtVec(i) * rw.AtVec(i)
		logR += math.Log(p.R[i])
	}
	prec.SymOuterK(1, bw.T())
	for i := range d {
		prec.SetSym(i, i, prec.At(i, i)+1)
	}
	var cp mat.Cholesky
	if !cp.Factorize(prec) {
		return nil, errors.New("exact: the posterior precision is not positive definite")
	}
	g := mat.NewVecDense(d, nil)
	g.MulVec(bw.T(), rw)
	var mz mat.VecDense
	if err := cp.SolveVecTo(&mz, g); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	mean := mat.NewVecDense(d, nil)
	mean.MulVec(&l, &mz)
	for i := range d {
		mean.SetVec(i, mean.AtVec(i)+p.Mean[i])
	}
	// Σ = L P⁻¹ Lᵀ = CᵀC with C = U⁻ᵀ Lᵀ, P = UᵀU.
	var u mat.TriDense
	cp.UTo(&u)
	var cm mat.Dense
	if err := cm.Solve(u.T(), l.T()); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(1, cm.T())
	logZ := -0.5 * (float64(n)*math.Log(2*math.Pi) + logR + cp.LogDet() + quad - mat.Dot(g, &mz))
	return &Result{Mean: mean.RawVector().Data, Cov: cov, LogZ: logZ}, nil
}

// ClosedForm reports whether the result is the closed-form Gaussian
// posterior N(Mean, Cov) of a linear-Gaussian problem (RunLinear), whose
// expectations of linear and quadratic functions and of Gaussian
// convolutions need no integration.
func (r *Result) ClosedForm() bool { return r.Method == "gaussian" && r.Cov != nil }

// gaussDraws is the number of posterior draws Expect averages over for a
// closed-form ("gaussian") result.
const gaussDraws = 1 << 16

// gaussianDraws returns n exact draws from the closed-form posterior
// N(Mean, Cov), seeded.
func (r *Result) gaussianDraws(n int, seed uint64) ([][]float64, error) {
	f, err := newFrame(r.Mean, r.Cov)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9a055))
	z := make([]float64, f.d)
	out := make([][]float64, n)
	for k := range out {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		out[k] = make([]float64, f.d)
		f.toW(z, out[k])
	}
	return out, nil
}

// gaussianExpect averages gs over gaussDraws posterior draws, with their
// Monte Carlo standard errors.
func (r *Result) gaussianExpect(ctx context.Context, gs []func([]float64) float64) ([]float64, []float64, error) {
	draws, err := r.gaussianDraws(gaussDraws, r.Seed)
	if err != nil {
		return nil, nil, err
	}
	sum, sq := make([]float64, len(gs)), make([]float64, len(gs))
	for k, w := range draws {
		if k%4096 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		for i, g := range gs {
			v := g(w)
			sum[i] += v
			sq[i] += v * v
		}
	}
	n := float64(len(draws))
	errs := make([]float64, len(gs))
	for i := range sum {
		sum[i] /= n
		errs[i] = math.Sqrt(math.Max(sq[i]/n-sum[i]*sum[i], 0) / n)
	}
	return sum, errs, nil
}
