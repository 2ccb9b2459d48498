// Package shard is expectation propagation over data shards (Gelman et al.,
// "Expectation propagation as a way of life", JMLR 2020, Algorithm 1; Xu et
// al., "Distributed Bayesian posterior sampling via moment sharing", 2014)
// for a Gaussian-block latent w ∈ R^d whose likelihood sites fall into K
// shards:
//
//	p(w | y) ∝ p0(w) · Π_k p(y_k | w),   p(y_k | w) = Π_{i ∈ k} p(y_i | a_iᵀw).
//
// Every shard owns a site approximation g_k(w) ∝ exp(−½ wᵀΛ_k w + η_kᵀ w), a
// Gaussian in natural parameters (a d×d precision Λ_k and a shift η_k). The
// global posterior is the prior times the sites, so natural parameters add:
//
//	Λ = Λ0 + Σ_k Λ_k,   η = η0 + Σ_k η_k.
//
// One iteration updates every shard from the same global posterior (the
// parallel EP of Gelman et al. §3):
//
//  1. cavity c_k = global − site k (natural parameters; skipped, and counted
//     in Stats.Skipped, when Λ − Λ_k is not positive definite);
//
//  2. local EP (infer/ep, its weight-space path when the shard has more
//     sites than weights) on the shard's data with the cavity as prior,
//     run to its own convergence from flat local sites; its local site
//     messages (τ̃_i, ν̃_i) on the projections f_i = a_iᵀw give the proposal
//
//     Λ*_k = Σ_{i∈k} τ̃_i a_i a_iᵀ,   η*_k = Σ_{i∈k} ν̃_i a_i
//
//     (the tilted approximation is c_k · g*_k, so no matrix is inverted);
//
//  3. damped replacement, site k ← (1 − δ)·site k + δ·g*_k, and the global
//     posterior is recomputed as prior + Σ_k site k.
//
// Site updates are replacements: the new site of shard k is a function of
// the global posterior it was given, its own old site and its data only, and
// the global posterior is summed from the sites afresh, never incremented.
// Running a shard's update twice (a retried bundle on a distributed runner)
// therefore gives the same site and the same global posterior
// (TestRetryIsIdempotent). The local EP starts from flat sites every time
// for the same reason: it keeps no state between iterations.
//
// With every local EP run to its own fixed point, each data site at the
// sharded fixed point satisfies full EP's moment matching against the
// global posterior (its local cavity is c_k over its own message, i.e. the
// global posterior over that message), so sharded EP and full EP share
// their fixed points: on 1000 probit points the two agree to 2e-12 for
// K = 2, 8, 32 (TestShardsAgainstFullEP). The shards change the schedule,
// not the answer. Gelman et al.'s bias of sharded EP appears only when the
// tilted distributions are approximated more coarsely (one ADF pass,
// sampling).
//
// Convergence is measured on the change of the global posterior, undamped
// as in infer/ep:
//
//	R(iter) = max(‖μ_iter − μ_iter−1‖₂, ‖Σ_iter − Σ_iter−1‖_F) / δ,
//
// and an iteration in which some shard was skipped (improper cavity, local EP
// not converged) is never Converged: R < Tol then gives Stalled.
//
// # Evidence
//
// With Ψ(Λ, η) = ½ ηᵀΛ⁻¹η − ½ log det Λ + (d/2) log 2π the log normaliser of
// a Gaussian in natural parameters, the EP evidence of the sharded
// approximation is (Gelman et al. §5.2, one site per shard)
//
//	log Z = Ψ(Λ0 + Σ_k Λ*_k, η0 + Σ_k η*_k) − Ψ(Λ0, η0)
//	        + Σ_k [log Z_k − Ψ(c_k + g*_k) + Ψ(c_k)],
//
// where log Z_k is the local EP's log Z_EP of ∫ c̄_k(w) p(y_k | w) dw (c̄_k the
// normalised cavity) and g*_k the undamped proposals of the last iteration:
// each bracket is log C_k, the constant that makes ∫ c̄_k C_k g*_k = Z_k.
// With one shard the cavity is the prior and log Z is exactly infer/ep's
// log Z_EP. It is reported for divergence kl and only for a converged run.
package shard
