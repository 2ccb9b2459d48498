package graph

import "github.com/fg-infer/fg/lang/ast"

// Potential is a log-potential log f(w) of a whole block vector with its
// gradient and diagonal Hessian, built by compile from `factor exp(EXPR)`
// by automatic differentiation (stdlib/ad). Derivs fills grad and hdiag
// (each of length N) and returns log f(w).
type Potential interface {
	LogF(w []float64) float64
	Derivs(w, grad, hdiag []float64) float64
}

// BatchFactor is a user potential over the whole vector (a mini-batch factor).
type BatchFactor struct {
	F      Potential
	Factor int
	Label  string
	Pos    ast.Pos
}
