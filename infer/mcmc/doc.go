// Package mcmc holds fg's sampling gold standards and their diagnostics.
//
// RunESS is elliptical slice sampling (Murray, Adams & MacKay 2010,
// "Elliptical slice sampling", AISTATS, Fig. 2) for a block with a Gaussian
// or GP prior N(m0, Σ0) and an arbitrary log-likelihood ℓ(w): from the state
// f it draws ν ~ N(0, Σ0) and a level log y = ℓ(f) + log u, u ~ U(0, 1), and
// moves along the ellipse
//
//	f'(θ) = m0 + (f − m0) cos θ + ν sin θ
//
// shrinking the bracket [θ − 2π, θ] towards θ = 0 until ℓ(f'(θ)) > log y. It
// leaves the posterior invariant, needs no tuning and never rejects. The
// burn-in adapts the ellipses to the posterior (adapt.go, ellipse.go:
// generalised elliptical slice sampling with a Student-t fitted to the
// pooled draws of all chains), so that a posterior much narrower than the
// prior still mixes in a few iterations.
//
// RunGibbs is Gibbs sampling on a discrete factor graph (graph.Graph with
// tables in libDAI order), by systematic sweeps or random scan, with
// Rao–Blackwellised marginal estimates: at each kept sweep it averages the
// full conditionals p(x_v = s | x_−v) rather than the indicators 1{x_v = s}.
//
// RunNet (net*.go) samples a model held as a typed factor graph
// (graph.Net): Gibbs on every conditional that is in its variable's family
// (found from the factors' log densities, infer/netjoint), blocked for
// coupled Gaussian variables, Gibbs on discrete states, and slice sampling
// on unconstrained coordinates for the rest.
//
// They run several chains in parallel goroutines; chain c draws from its own
// PCG source (both state words hashed from seed and c), so a seed reproduces
// the output exactly whatever the scheduling. Diagnostics (diag.go) are computed per scalar
// quantity over the chains: the multi-chain effective sample size of Stan with
// Geyer's initial monotone sequence on split chains (without rank
// normalisation; the reported Result.ESS and RHat are Stan's rank-normalised
// bulk ESS and R-hat, rank.go), Monte Carlo standard errors √(Var/ESS) for means and by
// the ESS of the squared deviations for variances, and split R-hat
// (Gelman et al., BDA3 §11.4).
//
// Standard errors come from the draws, so they cannot see what the chains
// never visited: a marginal of order 1/(number of sweeps), or one dominated
// by configurations that rare, gets a standard error that is far too small
// (TestGibbsStandardErrorCalibration shows z ≈ 40 for p ≈ 1.5e-4 after 1000
// sweeps). Run long enough that every probability of interest is ≫ 1/ESS.
package mcmc
