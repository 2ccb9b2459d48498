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
// optional damping in natural parameters. The projection, power, clamp and
// damping are the site update every EP engine shares (families/site.go,
// families.SiteUpdate); this package supplies the cavity of each site from
// its Gaussian-block posterior and the relaxed line search.
//
// Schedules: Sequential and Random update one site at a time with an O(M²)
// rank-1 update of the posterior covariance (O(N²) on the weight-space path
// below) (qi-guo eq. 22) and recompute the
// posterior from scratch every Refresh sweeps; Parallel updates every site
// from the same posterior and then refactors once per sweep through
// B = D + S Kf S (see bform). Both reach the same fixed point.
//
// # Weight-space path for linear blocks
//
// For a linear block (some site has Proj) with more sites than weights
// (M > N) and a positive-definite prior K, the engine works with the N×N
// posterior of w instead of the M×M one of f = A w (wspace.go): Σ_w =
// L B⁻¹ Lᵀ with K = L Lᵀ, B = I + Lᵀ Aᵀ T A L (Cholesky, or LU when some
// τ̃ < 0), μ_w = m0 + Σ_w Aᵀ(ν̃ − T A m0), sequential updates are rank-one
// updates of Σ_w (O(N²) per site), a parallel sweep or refresh is
// O(M N² + N³), and Kf = A K Aᵀ is never formed. det B = det(I + T Kf), so
// log Z_EP, power-EP evidence, relaxed EP, damping, Init, Predict,
// PredictLinear and Cov are unchanged; GP blocks, M ≤ N and singular K keep
// the site-space path. The two paths agree to 1e-9 (wspace_test.go);
// their costs are in docs/performance.md (BenchmarkLinearSweep*).
//
// # FITC path for sparse GPs
//
// RunFITC runs the same site updates (divergences, damping, schedules,
// clamp, log Z_EP) under the FITC prior Kt = Q + diag(K − Q) of m inducing
// inputs, in a representation of O(n m) numbers (fitc.go): a sequential
// site update is a rank-one up/downdate of an m×m Cholesky factor (O(m²)),
// a rebuild O(n m²); no n×n matrix is formed. It reproduces GPML 4.2's
// sparse infEP (data/reference/gpml_fitc: nlZ to ~1e-11, marginals and
// predictions to 1e-5) and equals this package's dense path on the
// explicitly formed Kt to 1e-8 (fitc_test.go). Its cost per sweep and
// memory (BenchmarkFITCSweep) are in docs/performance.md.
//
// Convergence is measured by R(iter) = ‖μ_iter − μ_iter−1‖₂ on the posterior
// means of the projections (qi-guo §6.1). Updates whose cavity precision is not
// positive are skipped and counted in Stats.Skipped; no NaN reaches a Result.
// For KL, Result.LogZ is log Z_EP (GPML infEP's −nlZ); for Alpha it is power
// EP's evidence approximation; relaxed KL reports none. log Z is summed in
// a form whose terms are of the size of the answer (result.go), and when it
// cannot be computed (a cavity that is not proper) the result's Message
// says why. Sites much tighter than their prior (τ̃_i Kf_ii > 10⁴, e.g. a
// Gaussian observation with noise variance 1e-12 on a unit-scale GP) get
// their marginals and cavities in leave-one-out form from B's Cholesky
// (tight.go): EP on Gaussian sites equals GP regression's closed form to
// 1e-8 down to r = 1e-12 (tight_test.go). The weight-space path does the
// same for its tight sites with a large leverage on a problem of at most
// 2N of them (tightw.go), FITC with leave-latent-out forms (fitc_tight.go);
// both match the leave-one-out closed form to 1e-8. A Gaussian site itself
// is computed exactly, τ̃ = 1/r (families.FactorSite).
//
// GPML's infEP clamps new site precisions at zero; Settings.NonNegativeSites
// does the same. It matters only for likelihoods that are not log-concave
// (Step with Eps > 0), where plain EP legitimately reaches sites with τ̃ < 0;
// the posterior is then recomputed through an LU factorisation of the
// indefinite B (see bform).
//
// The engine is validated against GPML 4.2 on every case in
// data/reference/gpml (nlZ to 1e-6 relative, latent and predictive
// moments to 1e-5), against closed-form GP and Bayesian linear regression,
// and against exact polar integration on qi-guo's five-point toy.
//
// # Relaxed EP and qi-guo §6.1
//
// The relaxed update follows qi-guo-relaxed-ep-rbp.md eqs 11–21 with one
// reading fixed by the text: q does not include r_i (§3.3; RBP's eq. 26,
// q = q^r / r), so the new site is proj(t r q\i)/(r q\i). Eqs 20–21 as
// printed add b instead (v_i = 1/(1/v_{i,b} + b)), which would make the
// posterior itself match the relaxed tilted distribution and contradicts
// both; tried (and discarded) on the toy it runs away (errors up to 40 in |Δmean|²).
// The cost Q(b) = KL(P_b ‖ proj P_b) + c b is eq. 35 derived term by term
// (relaxed.go); the extracted eq. 36 is garbled: at b = 0 it misses
// h(m̂ − h)/(2λ) of EP's KL and it is negative for some cavities. Q is not
// unimodal in b (b = 0 and a narrow valley where the relaxed cavity has
// moved to one side of the step), so the line search scans a dense grid up
// to Q(0)/c; inside the chosen valley the minimiser is the root of dQ/db
// (relaxed_slope.go: closed form for step, differences for probit and
// numeric sites), found by Brent's method, so relaxed EP meets tolerances
// down to ~1e-13 (TestRelaxedConvergesTightly).
//
// b is a precision of r_i in the units of f (eqs 11, 14, 39) and the penalty
// c|b| is not scale free: for f = xᵀw, x → s x leaves EP and the exact
// posterior unchanged but acts on REP as c → c/s². The paper's toy
// coordinates are not given, so its c = 20 and b = 0.01 do not transfer.
// Measured (go test -run 'TestRelaxedToy' -v ./infer/ep): on 200 random
// configurations shaped like Figure 1 (unit-scale coordinates, ε = 0.2), c
// = 20 and 10 give EP on ≥ 97% of them; at no c is REP better than EP in
// the median over the 20 configurations where EP is worst except c = 0.1
// (median error ratio 0.59, but 4.1 over all 200), only-the-outlier
// relaxation occurs for at most 27% of configurations, and at c =
// 0.3–1 REP misses R < 1e-3 within 200 sweeps on 18–25% of them (b jumps
// between the two minima of Q), against the paper's "never diverged". On
// examples/toy5.fg's points (R < 1e-3) c ≥ 4.2 gives EP; for 0.1 ≤ c ≤
// 2.4 only the mislabeled point is relaxed, as the paper says, but REP does
// not converge for 0.56 ≤ c ≤ 3.2 and where it converges (0.1 ≤ c ≤ 0.42)
// |Δmean|² is 0.021–0.047 against EP's 0.0007. With those points scaled by
// 10 (cavity variances ~100, where a b of order 0.01 at c = 20 is
// affordable, as the paper reports) REP (c = 20) converges with only the
// mislabeled point relaxed (b = 0.0013) but |Δmean|² = 0.038 against EP's
// 0.0007. So the implementation is the
// paper's algorithm as its text defines it, and its §6.1 toy claim is not
// reproduced.
package ep
