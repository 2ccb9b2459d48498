package fgraph

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/internal/openblas"
)

// condition conditions the Gaussian N(μ, Σ) (sigma: the full n×n row-major
// covariance, both triangles) on the observation factors
// N(y_k; a_kᵀx + c_k, σ_k²), k ∈ obs, in place, and returns their log
// evidence log N(y; Aμ + c, AΣAᵀ + R). It is the Cholesky form of the
// Gaussian conditional (the GP regression update, GPML Algorithm 2.1): in
// chunks of at most n observations,
//
//	P = AΣ,  S = PAᵀ + R = UᵀU,  V = U⁻ᵀP,  z = U⁻ᵀ(y − c − Aμ),
//	μ += Vᵀz,  Σ −= VᵀV,  log Z += −½ zᵀz − Σ_i log U_ii − (b/2) log 2π,
//
// with no inverse formed (the chunks apply the chain rule
// p(y) = Π p(y_chunk | earlier chunks)). S is the covariance of the
// observations, so its Cholesky factor exists whenever the noise
// variances are positive. With full false the last chunk leaves Σ as it
// is and returns its V (saving the O(b·n²) update): the posterior
// covariance is then Σ − VᵀV, whose diagonal is O(b·n) and whose
// projections read uᵀΣu − |Vu|² (gaussianPost) without forming it.
//
// Up to smallJoint variables the chunks have one observation each (the
// Kalman update Σ −= ggᵀ/s, g = Σa, s = aᵀg + σ², in place with no
// allocation): Σ then sits in cache and the O(n²) per observation beats
// the chunks' per-chunk overhead when observations far outnumber the
// variables (a regression with many rows).
//
// The O(n³) steps (Cholesky of S, the solve for V, the update of Σ) are
// openblas's blocked kernels that check done between blocks of at most
// openblas.ChunkFlops flops, and the loops over observations check it per
// observation: condition returns openblas.ErrCanceled when done closes.
func condition(g *Graph, obs []int32, mu, sigma []float64, full bool, done <-chan struct{}) (logZ float64, last *mat.Dense, err error) {
	n := g.n
	if n <= smallJoint {
		logZ, err = conditionEach(g, obs, mu, sigma, done)
		return logZ, nil, err
	}
	for len(obs) > 0 {
		b := min(len(obs), n)
		chunk := obs[:b]
		obs = obs[b:]
		P := make([]float64, b*n)
		r := make([]float64, b)
		for i, k := range chunk {
			if openblas.Done(done) {
				return 0, nil, openblas.ErrCanceled
			}
			fk := g.fac(int(k))
			lo, hi := fk.lo, fk.hi
			pi := P[i*n : (i+1)*n]
			r[i] = g.obs(int(k)) - g.cst(int(k))
			for e := lo; e < hi; e++ {
				v, a := int(fk.v(e)), fk.a(e)
				blas64.Axpy(a, vec(sigma[v*n:(v+1)*n]), vec(pi))
				r[i] -= a * mu[v]
			}
		}
		S := mat.NewSymDense(b, nil)
		for i := range chunk {
			if openblas.Done(done) {
				return 0, nil, openblas.ErrCanceled
			}
			pi := P[i*n : (i+1)*n]
			for l := i; l < b; l++ {
				fk := g.fac(int(chunk[l]))
				lo, hi := fk.lo, fk.hi
				s := 0.0
				for e := lo; e < hi; e++ {
					s += fk.a(e) * pi[fk.v(e)]
				}
				if l == i {
					s += g.noise(int(chunk[i]))
				}
				S.SetSym(i, l, s)
			}
		}
		u, err := openblas.CholUpperDone(S.RawSymmetric(), done)
		if errors.Is(err, openblas.ErrNotPositiveDefinite) {
			return 0, nil, errors.New("the observations' covariance is not positive definite")
		} else if err != nil {
			return 0, nil, err
		}
		V := blas64.General{Rows: b, Cols: n, Stride: n, Data: P}
		if err := openblas.TrsmLeftTransDone(u, V, done); err != nil {
			return 0, nil, err
		}
		blas64.Trsv(blas.Trans, u, vec(r))
		logDet := 0.0
		for i := 0; i < b; i++ {
			logDet += 2 * math.Log(u.Data[i*u.Stride+i])
		}
		logZ += -0.5*blas64.Dot(vec(r), vec(r)) - 0.5*logDet - 0.5*float64(b)*math.Log(2*math.Pi)
		blas64.Gemv(blas.Trans, 1, V, vec(r), 1, vec(mu))
		if full || len(obs) > 0 {
			if err := openblas.SyrkTransDone(-1, V, 1, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: sigma}, done); err != nil {
				return 0, nil, err
			}
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					sigma[j*n+i] = sigma[i*n+j]
				}
			}
			continue
		}
		last = mat.NewDense(b, n, P)
	}
	return logZ, last, nil
}

// smallJoint is the number of variables up to which condition takes the
// observations one at a time.
const smallJoint = 64

// conditionEach conditions N(μ, Σ) on the observations one at a time
// (condition with chunks of one), checking done every 64 observations
// (O(n²) ≤ 4096 flops each).
func conditionEach(g *Graph, obs []int32, mu, sigma []float64, done <-chan struct{}) (float64, error) {
	n := g.n
	quad, det, exp := 0.0, 1.0, 0 // Π s = det·2^exp (one Log at the end)
	gv := make([]float64, n)
	var vars []int
	var coefs []float64
	for i, k := range obs {
		if i%64 == 0 && openblas.Done(done) {
			return 0, openblas.ErrCanceled
		}
		fk := g.fac(int(k))
		vars, coefs = fk.vars(vars[:0]), fk.coefs(coefs[:0])
		clear(gv)
		r := fk.y() - fk.c()
		for e, v := range vars {
			a := coefs[e]
			for i, x := range sigma[v*n : (v+1)*n] {
				gv[i] += a * x
			}
			r -= a * mu[v]
		}
		s := fk.variance()
		for e, v := range vars {
			s += coefs[e] * gv[v]
		}
		if !(s > 0) {
			return 0, errors.New("an observation's predictive variance is not positive")
		}
		quad += r * r / s
		if det *= s; det > 0x1p500 || det < 0x1p-500 {
			f, e := math.Frexp(det)
			det, exp = f, exp+e
		}
		for i, gi := range gv {
			mu[i] += r / s * gi
			row := sigma[i*n : (i+1)*n]
			for j, gj := range gv {
				row[j] -= gi / s * gj
			}
		}
	}
	logDet := math.Log(det) + float64(exp)*math.Ln2
	return -0.5 * (quad + logDet + float64(len(obs))*math.Log(2*math.Pi)), nil
}

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }
