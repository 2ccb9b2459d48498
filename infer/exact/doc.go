// Package exact computes gold-standard posteriors for low-dimensional
// continuous blocks with a Gaussian prior,
//
//	p(w | D) = N(w; m0, Σ0) · exp(ℓ(w)) / Z,   Z = ∫ N(w; m0, Σ0) exp(ℓ(w)) dw,
//
// where ℓ(w) = Σ_i log t_i(w) is the log-likelihood (the sum of the site
// terms of the block). It returns the posterior mean, covariance, marginal
// variances and log Z with an error estimate. It is the reference against
// which EP, power EP, relaxed EP and the numerical moment schemes are measured
// (Qi & Guo's relaxed EP paper, §6.1, uses importance sampling for the same
// purpose).
//
// Two methods are offered (Settings.Method):
//
// "quad" (the default, d ≤ 3) integrates the vector of moment integrands
//
//	f(u) · [1, u_1, …, u_d, u_i u_j (i ≤ j)],   f(u) = N(w(u); m0, Σ0) exp(ℓ(w(u))) |det L|
//
// in whitened coordinates w(u) = c + L u over the box u ∈ [−R, R]^d by globally
// adaptive subdivision: a uniform initial partition (8 cells per axis), then
// the cell with the largest error estimate is bisected along the axis with
// the largest fourth difference until the propagated error of log Z, the mean
// and the covariance falls below Settings.Tol (Genz & Malik 1980 degree-7 rule
// with its embedded degree-5 rule for d = 2, 3; Gauss–Kronrod 7–15 for d = 1;
// the per-cell error is |I_high − I_low|, summed in absolute value over cells,
// which is conservative). Jumps of a step likelihood are handled because
// subdivision concentrates on the cells that the discontinuity cuts; the
// integrand is also evaluated at each cell's 2^d vertices, and a cell whose
// vertices see a jump that the rule's nodes miss (the discontinuity clips a
// corner) gets the bound 2^(d−1)·vol·(max − min) instead, so no cut cell
// escapes refinement. The error estimate then decreases only like O(h) and
// a tolerance that is too strict for the evaluation budget ends the run with
// infer.IterationLimit and the achieved estimate.
//
// The run has stages. Stage 0 finds the posterior mode by Nelder–Mead in
// the prior's whitened coordinates and the per-axis half-widths at which
// −log p rises by 2. Stage 1 whitens by the prior (c = m0, L = chol Σ0),
// integrates over ±R prior standard deviations (widened to contain ±R around
// the mode) to a loose tolerance, first bisecting the cell holding the mode
// down to the half-widths, so that a posterior far narrower than the prior
// (1e-5 of its scale in the tests) is not missed by the initial nodes.
// Stage 2 whitens by the stage-1 posterior (c = m1, L = chol C1) and
// integrates over ±R posterior standard deviations to Settings.Tol; it is
// repeated (at most three times) with its own moments when its frame was
// poor (a mean beyond one sd of the centre, a variance off by a factor e).
// The tolerance is therefore relative to the posterior scale: an error
// estimate of 1e-6 means log Z to 1e-6 absolute and each posterior mean and
// covariance entry to 1e-6 of the posterior standard deviations involved.
// Mass outside the last box (beyond R = 10 posterior standard deviations by
// default) is not counted, and, as with every adaptive rule, a feature that
// no node comes near — an isolated spike away from the mode and the bulk —
// can be missed; unimodal likelihoods are safe.
//
// "is" is self-normalised importance sampling; it works in any dimension
// and reports Monte Carlo standard errors (delta method) and the effective
// sample size of the weights, (Σ W)² / Σ W² (Kong 1992). The default
// proposal ("adaptive") is the defensive mixture 0.1·prior + 0.9·Student-t(5)
// fitted to pilot posterior moments (at most three pilot rounds), whose
// weights stay bounded by 10·exp(ℓ); "prior" samples the prior
// (weights exp(ℓ)). It makes two passes over regenerated blocks of samples,
// so memory does not grow with the number of samples (10^8, as qi-guo used
// for the 2-D toy, is feasible).
//
// RunNet (net*.go) computes the exact posterior of a model held as a typed
// factor graph (graph.Net: Beta, Gamma, inverse-Gamma, Dirichlet and
// discrete latents, discrete chains) from its factors' log densities
// (infer/netjoint): forward–backward on discrete chains, enumeration of
// discrete latents with the continuous ones in closed form where they are
// conjugate, and "quad" above over the few coordinates that are not,
// component by component; PlanNet says beforehand which, or why not.
package exact
