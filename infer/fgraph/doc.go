// Package fgraph is a message scheduler on factor graphs of scalar
// continuous latents: Markov chains x_t ~ N(a x_{t−1} + b, q), hierarchies
// θ_j ~ N(μ, τ²) with μ latent, regressions with separate intercepts, and
// likelihood factors (probit, step, gaussian from infer/ep) on affine
// expressions aᵀx + c of several latents, as in TrueSkill's
// step(perf_w − perf_l, 0).
//
// # Graph
//
// A Graph holds variables x_0 … x_{n−1} and factors on affine expressions
// of them, stored flat (graph.go): linear-Gaussian factors
// N(y; aᵀx + c, σ²) — priors, conditionals and Gaussian observations — and
// likelihood sites p(y | aᵀx + c); and dense Gaussian blocks
// N(x_F; m, K) over several variables (block.go: a GP or mvnormal prior
// inside a larger graph, e.g. a GP with a latent bias), which need family =
// full. Results carry every variable's marginal and every site's
// projection marginal (FMean, FVar).
//
// # Messages (family = factorized)
//
// Every variable holds a belief b_v = Π_k m_{k→v} in natural parameters
// (τ, ν), kept as a sum so that the message variable → factor is the
// belief minus the factor's message (messages.go). A linear-Gaussian factor
// sends the exact Gaussian message; a site sends EP messages under a
// factorised family (Minka 2001; the operators of Infer.NET): the tilted
// distribution of its projection f = aᵀx + c under the cavities gives, by
// the chain rule, the tilted marginal of every variable, and the message is
// the projection divided by the cavity (power EP with alpha(A): cavity
// b/m^A, message (proj/cavity)^{1/A}). Damping mixes messages in natural
// parameters. The tilted moments are infer/ep's Likelihood.Tilted; the
// projection, power and damping are the site update every EP engine
// shares, in its multi-edge form (families/site.go: Projection,
// MemberDerivs, TiltedSite, Damped). A site Gaussian in its projection
// (N(y; f, r)) sends each member its exact message from the other members'
// cavity (LeaveOneOut, MemberSite), which keeps its digits when r and the
// other members' variance are tiny against a member's cavity.
//
// Schedules (loop.go, schedule.go): when the bipartite graph is a forest
// (a chain, a hierarchy) a sweep is one upward and one downward pass from a
// root per component, after which linear-Gaussian graphs are solved exactly
// (the Rauch–Tung–Striebel smoother on a chain) in O(T) time and memory; with
// sites the passes repeat until the beliefs stop moving. A site on one
// variable is updated in both passes, each time after the other messages
// of the pass have reached its variable, so its cavity is the exact
// marginal given the other sites' current messages: sequential EP (Heskes &
// Zoeter 2002), whose fixed point and convergence on a chain are those of
// infer/ep's sequential EP on the joint (a 5000-step probit walk converges
// in 14 undamped passes; updating every site from the previous pass, as
// parallel EP does, oscillates there). Loopy graphs run
// sequential sweeps (every factor in turn), parallel ones (every factor
// from the same beliefs) or the residual schedule (residual.go: the factor
// whose proposal would move a belief most goes first). Convergence is judged on the undamped residual —
// the largest change of a belief's mean or standard deviation in units of
// its standard deviation, divided by the damping — and a sweep with a
// skipped update (improper cavity or tilted marginal) never converges: it
// ends Stalled.
//
// log Z (logz.go) is the Bethe / EP energy Σ_k log Z_k + Σ_v (1 − d_v) log Z_v,
// exact on linear-Gaussian forests (the Kalman filter's prediction-error
// decomposition on a chain); under alpha(A) it is power EP's evidence,
// equal to infer/ep's on a forest.
//
// # Discrete variables and gates (discrete.go, gate.go)
//
// A discrete variable z ~ Categorical(p) with a fixed prior may select the
// branch of gated factors (Minka & Winn 2008, "Gates", NIPS):
// f(y, x, z) = Π_k f_k(y | a_kᵀx + c_k)^{[z = k]}, each branch a likelihood
// on its own affine expression (y ~ N(mu[z], s²), probit(x·w[z]), or a
// branch on no variable such as an outlier density). Under the factorised
// family one schedule runs BP on the discrete part and EP on the Gaussian
// part: a gate's message to its selector is each branch's evidence under
// the Gaussian cavities, m(k) = Z_k (Likelihood.Tilted of the branch's
// projection), and its message to a Gaussian variable is the
// moment-matched mixture Σ_k r_k q̂_k, r_k ∝ c(k) Z_k, divided by the
// cavity. alpha(A) raises the gate to the power A in the joint (x, z)
// space (messages (q̂/cavity)^{1/A}, m(k) = Z_k^{(A)1/A}); damping mixes
// the discrete messages geometrically; log Z adds each gate's term and
// (1 − d_z) log Σ_k b_z(k) per discrete variable to the Bethe energy; the
// result carries p(z_d = k) in Prob. On the clutter problem with explicit
// indicators this is exactly EP with the mixture likelihood (tested to
// 1e-9), and under alpha a power EP written in (x, z) space. Gated graphs
// need family = factorized (a gate's tilted distribution is a mixture over
// several projections, which joint-Gaussian EP has no site for), and run
// sequential or parallel sweeps; the residual schedule is refused. Relaxed
// KL runs on gates (relaxed.go): one relaxation weight per gate, the
// factor N(x_v; m_v, 1/b) on each of its Gaussian variables, b chosen by a
// line search on the KL over (x, z) from the relaxed tilted distribution
// to its factorised projection plus c·b; non-Gaussian sites on the same
// graph are relaxed as one-branch gates. Result.B holds the sites'
// weights, then the gates'.
//
// Gold standard: Enumerate sums the closed-form Gaussian posterior and
// evidence of every configuration of the discrete variables (at most
// MaxConfigurations = 2²⁰) when every branch is Gaussian and there are no
// other sites. The gold standards of other gated graphs (quadrature with
// the discrete variables summed out, Gibbs with elliptical slice sampling)
// read the model's IR, not this graph (infer/run/gatelik.go).
//
// # family = full
//
// Full (the default) treats the Gaussian part as one joint Gaussian, the
// family of the GP and linear block engines. On a forest joint EP and
// factorised EP have the same fixed point (a factor's cavity under the
// joint is the product of the marginals of the subtrees it joins), so Full
// runs the forward–backward schedule there, in O(T). Otherwise (and for
// relaxed KL) the graph is solved on a dense joint Gaussian built in
// covariance form, with no inverse: every variable of a directed model
// (one prior, conditional or block each, no cycle: what compile builds) is
// defined by its factor in topological order, so the prior mean and
// covariance are propagated exactly (x_v = Σ b_j x_j + d + ε, blocks
// N(m, K) copied as given: gauss.Direct and gauss.Directed.Moments, which
// graph.FactorGraph.JointPrior runs for the gold standards), the other linear-Gaussian factors condition it
// by Cholesky updates (the GP regression update), and the sites run
// joint-Gaussian EP on projections of the joint (infer/ep, with every
// divergence it supports), so TrueSkill's skill marginals equal EP with the
// performances integrated out and a GP with a latent bias equals the GP
// with the bias folded into its kernel to 1e-8 even at cond K ≈ 1e11.
// Graphs that are not directed (only through the Go API: factors that
// leave a loop of variables with no single-variable definition) take the
// information form, one Cholesky factorisation of the precision. The dense
// joint holds at most MaxJoint variables.
//
// A linear-Gaussian graph (no sites, blocks or gates) whose precision is
// banded in the variables' order — a chain of d-dimensional states stored
// time-major, half-bandwidth k ≤ 2d − 1 (Graph.Banded) — is solved on the
// band instead (band.go, with netjoint.RootBand): the square-root
// information filter — each factor a row of a least-squares system,
// folded by Givens rotations into the banded Cholesky factor R of Λ
// without forming Λ (Bierman 1977; Paige & Saunders 1977), which keeps the
// digits the information form loses on ill-conditioned chains — the means
// by one banded solve, the variances by the selected inverse of Takahashi,
// Fagan & Chen (1973) (on a chain, the Rauch–Tung–Striebel smoother's
// covariances), log Z from R's diagonal and the residuals at the mean:
// O(n k²) time and O(n k) memory at any n.
//
// Likelihood sites whose projections stay within that band (the elements
// of one step: a probit label of H x_t, a count of x_t,1) keep it: the
// precision of joint EP's approximation, Λ + Σ_s τ̃_s a_s a_sᵀ, has the same
// half-bandwidth (siteBandwidth), and family = full runs on the band
// (band_ep.go, bandEP) instead of the dense joint. A sweep eliminates the
// variables from the last, recording for every site's window [lo, lo + k]
// the backward Schur correction, then from the first, updating each site
// when the elimination reaches its window from its exact marginal under
// the current approximation (forward Schur complement + recorded
// correction, a (k+1)×(k+1) Cholesky): sequential EP in time order, O(n k²)
// a sweep, with the shared site update (families.TiltedSite, Damped);
// schedule = parallel updates every site from one marginal pass. The
// final marginals come from q solved in square-root information form
// (netjoint.RootBand; the information band when a site precision is
// negative) by the selected inverse, and log Z_EP from its log det. It equals infer/ep on the dense joint to
// 1e-8 (band_ep_test.go). On a long chain whose labels saturate, parallel
// EP oscillates where the sequential schedule converges (TestBandEPSchedules).
// The sweeps' information form resolves marginals only to the rounding of
// Λ's entries relative to the marginal precision (~10⁻⁶ of a standard
// deviation on a near-constant-velocity chain of 900 steps), and the
// residual discounts each site's rounding level so that such a chain
// converges.
//
// The costs of forward–backward, EP on chains and on the band, gated
// sweeps and the dense joint (BenchmarkRandomWalk, ProbitWalk, BandEP,
// GateSweep, DenseJoint) are in docs/performance.md.
package fgraph
