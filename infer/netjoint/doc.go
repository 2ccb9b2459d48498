// Package netjoint evaluates the joint density of a model held as a
// graph.Net at a point, the common ground of the gold standards on such
// models (infer/exact's enumeration, forward–backward and quadrature, and
// infer/mcmc's Gibbs and slice sampler).
//
// A point x holds every variable of the Net: a real number for a Gaussian,
// Gamma, inverse-Gamma or Beta variable, K numbers for a Dirichlet one, and
// the state index 0..K−1 (as a float64) for a Discrete one. Joint resolves
// each factor's edges at x — a variable's value, an affine expression of
// Gaussian variables, data, or the branch that a selector's state picks —
// and asks the factor's kind for its log density at those values:
//
//	log p(x) = Σ_f log f(e_f1(x), …, e_fn(x)).
//
// Conjugacy is found, not declared: restricted to one variable θ of family
// F with every other variable fixed, a factor is conjugate to F exactly
// when its log density is linear in F's sufficient statistics,
//
//	log f(θ) = ⟨η_f, T_F(θ)⟩ + c_f,
//
// (T = (log p, log(1−p)) for a Beta, (log τ, τ) for a Gamma, (log s, 1/s)
// for an inverse Gamma, (log w_1..log w_K) for a Dirichlet; for Gaussian
// variables a quadratic form in all of them). Fit finds η_f and c_f by
// least squares at a few points of the support and accepts them only if the
// fit reproduces log f at further points to round-off. The conditional of θ
// is then the family with natural parameters η_0 + Σ η_f and, when θ is
// integrated out, the log evidence contribution is Σ c_f + A_F(Σ η_f), A_F
// the log normaliser of the family in these coordinates (Bernardo & Smith
// 1994, §5.2; Bishop 2006, §2.4). The same fit serves exact evidence and
// Gibbs conditionals, for every factor kind that has a log density.
package netjoint
