package fgraph

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer/ep"
)

// posterior is the joint posterior a Result keeps under Settings.Cov: it
// answers the mean and variance of linear projections of the variables.
type posterior interface {
	// project returns uᵀμ and uᵀΣu for each row u of X over vars.
	project(vars []int, X *mat.Dense) (mean, vr []float64, err error)
}

// Project returns the posterior mean and variance of the projections
// g_t = X[t,:]·x[vars], one per row of X (len(vars) columns, vars
// distinct):
//
//	E g_t = X[t,:] μ_vars,   Var g_t = X[t,:] Σ_vars,vars X[t,:]ᵀ,
//
// with Σ the joint posterior covariance, so the covariances between the
// variables count (a GP block's predictive f* = aᵀf plus a latent bias b
// needs cov(f, b)). It needs a run with Settings.Cov: under Full the
// dense joint (the exact Gaussian, or infer/ep's posterior, whose
// PredictLinear reads Σ through its factorisation in O(T·n²) for T rows,
// without forming Σ); under Factorized the product of the beliefs, whose
// covariance is diagonal by construction of the family.
func (r *Result) Project(vars []int, X *mat.Dense) (mean, vr []float64, err error) {
	if r == nil || r.post == nil {
		return nil, nil, errors.New("fgraph: the result keeps no joint posterior (run with Settings.Cov, and a status with numbers)")
	}
	t, c := X.Dims()
	if c != len(vars) {
		return nil, nil, fmt.Errorf("fgraph: Project: X has %d columns for %d variables", c, len(vars))
	}
	n := len(r.Mean)
	seen := make(map[int]bool, len(vars))
	for _, v := range vars {
		if v < 0 || v >= n || seen[v] {
			return nil, nil, fmt.Errorf("fgraph: Project: variable %d out of range [0, %d) or repeated", v, n)
		}
		seen[v] = true
	}
	if t == 0 {
		return []float64{}, []float64{}, nil
	}
	return r.post.project(vars, X)
}

// gaussianPost is the exact posterior of a linear-Gaussian graph, with
// covariance cov − vᵀv (v nil: cov; see condition).
type gaussianPost struct {
	mean []float64
	cov  *mat.SymDense
	v    *mat.Dense
}

func (p gaussianPost) project(vars []int, X *mat.Dense) ([]float64, []float64, error) {
	t, k := X.Dims()
	sub := mat.NewSymDense(k, nil)
	for i, vi := range vars {
		for j := i; j < k; j++ {
			sub.SetSym(i, j, p.cov.At(vi, vars[j]))
		}
	}
	var XS, XV mat.Dense
	XS.Mul(X, sub)
	if p.v != nil {
		m, _ := p.v.Dims()
		vsub := mat.NewDense(m, k, nil)
		for i, vi := range vars {
			vsub.SetCol(i, mat.Col(nil, vi, p.v))
		}
		XV.Mul(X, vsub.T())
	}
	mean, vr := make([]float64, t), make([]float64, t)
	for r := 0; r < t; r++ {
		x := X.RawRowView(r)
		for i, vi := range vars {
			mean[r] += x[i] * p.mean[vi]
		}
		vr[r] = mat.Dot(mat.NewVecDense(k, x), mat.NewVecDense(k, XS.RawRowView(r)))
		if p.v != nil {
			w := XV.RawRowView(r)
			vr[r] -= floats.Dot(w, w)
		}
		vr[r] = max(vr[r], 0)
	}
	return mean, vr, nil
}

// epPost is joint-Gaussian EP's posterior over the n coordinates of the
// site problem (the variables, then the constant coordinate when a site
// has a constant term: it has prior variance 0, so padding it with 0 is exact).
type epPost struct {
	r *ep.Result
	n int
}

func (p epPost) project(vars []int, X *mat.Dense) ([]float64, []float64, error) {
	t, _ := X.Dims()
	full := mat.NewDense(t, p.n, nil)
	for r := 0; r < t; r++ {
		row := full.RawRowView(r)
		for i, v := range vars {
			row[v] += X.At(r, i)
		}
	}
	mean, vr, err := p.r.PredictLinear(full)
	if err != nil {
		return nil, nil, err
	}
	for i := range vr {
		vr[i] = max(vr[i], 0)
	}
	return mean, vr, nil
}

// beliefs is a factorised posterior: independent Gaussian beliefs.
type beliefs struct{ mean, vr []float64 }

func (p beliefs) project(vars []int, X *mat.Dense) ([]float64, []float64, error) {
	t, _ := X.Dims()
	mean, vr := make([]float64, t), make([]float64, t)
	for r := 0; r < t; r++ {
		for i, v := range vars {
			a := X.At(r, i)
			mean[r] += a * p.mean[v]
			vr[r] += a * a * p.vr[v]
		}
	}
	return mean, vr, nil
}
