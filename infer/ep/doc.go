// Package ep is expectation propagation for a Gaussian block: a prior
// N(w; m0, K) and non-Gaussian sites p(y_i | a_iᵀw) on scalar projections
// (a_i = e_i for Gaussian-process classification, a_i = x_i for a Bayesian
// linear classifier).
//
// Every site keeps a message t̃_i(f) ∝ exp(−½ τ̃_i f² + ν̃_i f) in natural
// parameters (τ̃ may be negative). One update (rodrigues-gpc-message-passing.md
// eqs 9–22): cavity = posterior marginal / message^u, tilted = likelihood^u ×
// cavity, project onto a Gaussian by moment matching, new message =
// (projection / cavity)^{1/u}. Divergences (package infer): KL (EP, u = 1),
// Alpha{A} (power EP, u = A; qi-guo long version Appendix C), RelaxedKL{C}
// (relaxed EP: the cavity is multiplied by a relaxation factor whose weight
// b_i ≥ 0 is chosen per update by a line search; see relaxed.go), each with
// optional damping in natural parameters.
//
// Schedules: Sequential and Random update one site at a time with an O(M²)
// rank-1 update of the posterior covariance (qi-guo eq. 22) and recompute the
// posterior from scratch every Refresh sweeps; Parallel updates every site
// from the same posterior and then refactors once per sweep through
// B = D + S Kf S (see bform). Both reach the same fixed point.
//
// Convergence is measured by R(iter) = ‖μ_iter − μ_iter−1‖₂ on the posterior
// means of the projections (qi-guo §6.1). Updates whose cavity precision is not
// positive are skipped and counted in Stats.Skipped; no NaN reaches a Result.
// For KL, Result.LogZ is log Z_EP (GPML infEP's −nlZ); for Alpha it is power
// EP's evidence approximation; relaxed KL reports none.
//
// GPML's infEP clamps new site precisions at zero; Settings.NonNegativeSites
// does the same. It matters only for likelihoods that are not log-concave
// (Step with Eps > 0), where plain EP legitimately reaches sites with τ̃ < 0;
// the posterior is then recomputed through an LU factorisation of the
// indefinite B (see bform).
//
// The engine is validated against GPML 4.2 on every case in
// /work/shared/reference/gpml (nlZ to 1e-6 relative, latent and predictive
// moments to 1e-5), against closed-form GP and Bayesian linear regression,
// and against exact polar integration on qi-guo's five-point toy.
package ep
