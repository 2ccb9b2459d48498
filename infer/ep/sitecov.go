package ep

import "gonum.org/v1/gonum/mat"

// SiteCov returns the posterior covariance Σ_f of the site projections
// f = A w that a sequential site-space run kept with Settings.KeepCov: the
// running Σ_f, kept exact up to rounding by the rank-one updates of the
// last sweeps (and refreshed every Settings.Refresh sweeps), so that it
// belongs to the final sites. ok is false when it was not kept (KeepCov
// unset, a parallel schedule, the weight-space path, a failed run). The
// matrix is the result's own: callers must not modify it.
func (r *Result) SiteCov() (cov *mat.SymDense, ok bool) {
	if r.sigma == nil {
		return nil, false
	}
	return r.sigma, true
}
