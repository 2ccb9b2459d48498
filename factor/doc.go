// Package factor is fg's registry of factor kinds: one file per kind
// (probit.go, step.go, normal.go, student_t.go, poisson_log.go, ising.go,
// ...), each holding the kind's builtin signature with typed parameters
// and defaults, its documentation, a validating constructor, and every
// message rule it supports, expressed as the Go interfaces its value type
// implements:
//
//	Tilted       closed-form (or fixed-quadrature) tilted moments — ep with kl, alpha, relaxed_kl
//	Escort       escort moments of the t-exponential family — ep with t(nu)
//	LogDensity   log p(y | f) with two derivatives — numerical schemes, exact, mcmc
//	ClassProb    p(y = +1) under a Gaussian predictive — predict, decision plots
//	MeanObs      E[y] under a Gaussian predictive — predict (e.g. expected counts)
//	ParamGrad    the evidence gradient in the likelihood's parameter — learn
//	Tabler       a table over discrete states — bp, jtree, gibbs
//	graph.PriorKind  a real vector prior of a Gaussian block: its family (Gaussian, Student-t) and shape — ep, t-EP, exact, mcmc, learn
//	DiscretePrior, Selector, Numerical — discrete priors and potentials
//
// The role a kind plays (prior, likelihood, potential, loss) is part of its
// key: normal the prior and normal the likelihood are two kinds, NormalPrior
// and Normal, sharing one builtin. The rule table (Rules, Markdown, `fg
// rules`) is derived from these interfaces and each kind's quality marks,
// so it cannot claim a rule that has no code: docs/language.md embeds it
// and a test keeps both equal.
//
// This follows the spirit of Infer.NET's one file per factor (operators
// and a Quality attribute beside the factor) and ReactiveMP's per-node
// rules. The package sits below compile and the engines: it imports only
// stdlib (for the builtin signature types), stdlib/loss, families and
// internal helpers, so the engines can accept its values directly.
package factor
