// Package learn is evidence maximisation for Gaussian blocks: it finds the
// kernel hyperparameters and likelihood parameters x that maximise the EP
// approximation log Z_EP(x) of the marginal likelihood, with exact
// gradients and a quasi-Newton optimiser (gonum/optimize L-BFGS).
//
// # The evidence
//
// For a block with prior N(w; m0, K) and sites p(y_i | f_i), f = Aw, at an
// EP fixed point with site messages t̃_i(f) ∝ exp(−½ τ̃_i f² + ν̃_i f)
// (rodrigues-gpc-message-passing.md eqs 23–28; infer/ep's Result.LogZ)
//
//	log Z_EP = log ∫ N(f; f0, K_f) Π_i exp(−½τ̃_i f_i² + ν̃_i f_i) df
//	         + Σ_i [log Ẑ_i(m_i, v_i) − log ∫ N(f; m_i, v_i) exp(−½τ̃_i f² + ν̃_i f) df],
//
// with K_f = A K Aᵀ, f0 = A m0, (m_i, v_i) the cavity of site i and
// Ẑ_i = ∫ p(y_i | f) N(f; m_i, v_i) df its tilted normaliser.
//
// # Why only explicit derivatives are needed
//
// Write log Z_EP = F(x, λ) with λ = (τ̃, ν̃). The total derivative is
// ∂F/∂x + (∂F/∂λ)(dλ/dx), and at a KL fixed point ∂F/∂λ = 0: EP's fixed
// points are the stationary points of its free energy in the site
// parameters (Minka 2001; Seeger 2005, "Expectation propagation for
// exponential families"). In ∂F/∂x with λ held fixed, the cavities still
// depend on K, but the derivative of each bracket in the second line with
// respect to the cavity's natural parameters is (tilted moments) −
// (moments of cavity × site) = 0 by moment matching. What is left is
//
//	kernel:      ∂ log Z_EP/∂x_k = ½ tr(R ∂K_f/∂x_k),
//	             R = α αᵀ − (K_f + T̃⁻¹)⁻¹,  α = ν̃ − T̃ μ_f,  (K_f + T̃⁻¹)⁻¹ = T̃ − T̃ Σ_f T̃,
//	likelihood:  ∂ log Z_EP/∂θ = Σ_i ∂ log Ẑ_i(m_i, v_i; θ)/∂θ  at fixed cavities,
//
// the first being the derivative of the Gaussian pseudo-evidence
// log N(μ̃; f0, K_f + T̃⁻¹) (Rasmussen & Williams 2006, §5.5.2; GPML
// infEP's dnlZ = −½ tr((bbᵀ − S½B⁻¹S½) ∂K) with B = I + S½KS½ and
// b = ν̃ − S½B⁻¹S½Kν̃, of which the form above is the same matrix written
// without S½, so that negative site precisions are allowed). For the step
// likelihood Ẑ = ε + (1 − 2ε)Φ(y m/√v), hence ∂ log Ẑ/∂ε = (1 − 2Φ(z))/Ẑ;
// for a Gaussian likelihood ∂ log N(y; m, v + σ²)/∂σ² = ½((y − m)²/s² − 1/s),
// s = v + σ² (LikParamGrad).
//
// The argument needs an exact KL fixed point: the optimiser runs plain EP
// (no clamping of negative site precisions, GPML's default, which leaves
// the step likelihood off its fixed point) to a tight tolerance. The
// gradients are checked against central finite differences of log Z_EP on
// the GPML reference cases (toy2d_se_probit, toy2d_se_step01 including ε,
// pima_ripley_se_probit) to 1e-5 relative, and against the closed-form GP
// regression and Bayesian linear regression evidences to 1e-8.
//
// Alpha and relaxed KL have no log Z_EP in infer/ep, and for t(ν) (futami
// eqs 39–42) no stationarity result for the t-evidence is available to
// verify against, so Optimize refuses divergences other than KL.
//
// # Optimisation
//
// Parameters are moved in unconstrained coordinates u (Transform): log for
// positive values, logit for an interval (Lo, Hi) such as ε ∈ (0, ½),
// identity for values already on the real line (e.g. log ℓ). Optimize
// minimises −log Z_EP(x(u)) with L-BFGS (or BFGS, CG), warm-starts each EP
// run from the sites of the previous successful evaluations extrapolated to
// the new point (ep.Problem.Init; warmStart), runs it to a tolerance that
// scales with the last gradient (epTol), records every evaluation (x,
// log Z, gradient) and ends
// with an infer.Status. The model is supplied as a Builder that returns the
// blocks (ep.Problem, ∂K/∂x, ∂θ_site/∂x) at x; Kernel maps the language's
// kernel expressions to stdlib/kernel Gram matrices and their gradients.
package learn
