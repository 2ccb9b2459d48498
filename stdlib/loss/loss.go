// Package loss holds the classification losses of roche-numerical-ep.txt §3.2
// as functions of the margin m = y·xᵀw, in scalar form (value, first and
// second derivative) and as ad.Jet functions for compiled user potentials
// `factor exp(-beta * sum(loss(y[b] * (X[b] @ w))))`.
//
//	logistic_loss(m) = log(1 + e^{−m})
//	hinge(m)         = max(0, 1 − m)
//	quasi01(m, ε)    = 1 − ε m  (m < 0),  1 − m/ε  (0 ≤ m < ε),  0  (m ≥ ε)
//
// quasi01 is Roche's continuous non-convex surrogate of the 0–1 loss
// (ε = 1 is the hinge). At the kinks of hinge (m = 1) and quasi01 (m = 0 and
// m = ε) the derivative is the half sum of the one-sided limits, as in
// Roche §3.2; second derivatives are 0 away from the logistic loss.
package loss

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/stdlib/ad"
)

// Loss is a loss of the margin with its first two derivatives.
type Loss interface {
	// Eval returns ℓ(m), ℓ'(m), ℓ''(m).
	Eval(m float64) (v, d1, d2 float64)
	// Value returns ℓ(m) alone (cheaper than Eval).
	Value(m float64) float64
	Name() string
	// Convex reports whether ℓ is convex in m, so that the potential
	// exp(−β Σ ℓ(m_k)) with β ≥ 0 and margins linear in w is log-concave
	// in w (a posterior with it and a Gaussian prior has one mode).
	Convex() bool
}

// Logistic is log(1 + e^{−m}), computed stably (no overflow for |m| large).
type Logistic struct{}

// Hinge is max(0, 1 − m).
type Hinge struct{}

// Quasi01 is Roche's piecewise-linear quasi 0–1 loss with parameter Eps > 0.
type Quasi01 struct{ Eps float64 }

// Eval: ℓ = softplus(−m), ℓ' = −σ(−m), ℓ” = σ(m) σ(−m).
func (Logistic) Eval(m float64) (v, d1, d2 float64) {
	s := ad.Sigmoid(-m)
	return ad.Softplus(-m), -s, s * ad.Sigmoid(m)
}

// Value returns softplus(−m).
func (Logistic) Value(m float64) float64 { return ad.Softplus(-m) }

// Name returns "logistic_loss".
func (Logistic) Name() string { return "logistic_loss" }

// Convex: ℓ” = σ(m) σ(−m) > 0.
func (Logistic) Convex() bool { return true }

// Eval: ℓ' = −1 for m < 1, 0 for m > 1, −½ at m = 1.
func (Hinge) Eval(m float64) (v, d1, d2 float64) {
	switch {
	case m < 1:
		return 1 - m, -1, 0
	case m > 1:
		return 0, 0, 0
	}
	return 0, -0.5, 0
}

// Value returns max(0, 1 − m).
func (Hinge) Value(m float64) float64 { return max(0, 1-m) }

// Name returns "hinge".
func (Hinge) Name() string { return "hinge" }

// Convex: the maximum of two linear functions.
func (Hinge) Convex() bool { return true }

// Eval: slopes −ε, −1/ε, 0 on the three pieces; half sums at m = 0 and m = ε.
func (q Quasi01) Eval(m float64) (v, d1, d2 float64) {
	e := q.Eps
	switch {
	case m < 0:
		return 1 - e*m, -e, 0
	case m == 0:
		return 1, -(e + 1/e) / 2, 0
	case m < e:
		return 1 - m/e, -1 / e, 0
	case m == e:
		return 0, -0.5 / e, 0
	}
	return 0, 0, 0
}

// Value returns ℓ_ε(m).
func (q Quasi01) Value(m float64) float64 {
	switch {
	case m < 0:
		return 1 - q.Eps*m
	case m < q.Eps:
		return 1 - m/q.Eps
	}
	return 0
}

// Name returns "quasi01(eps)".
func (q Quasi01) Name() string { return fmt.Sprintf("quasi01(%g)", q.Eps) }

// Convex: the slopes −ε, −1/ε, 0 increase (a convex piecewise-linear
// function) only when ε ≥ 1; below, the kink at m = 0 is concave.
func (q Quasi01) Convex() bool { return q.Eps >= 1 }

// ByName returns the loss "logistic"/"logistic_loss", "hinge" or "quasi01"
// (with parameter eps > 0).
func ByName(name string, eps float64) (Loss, error) {
	switch name {
	case "logistic", "logistic_loss":
		return Logistic{}, nil
	case "hinge":
		return Hinge{}, nil
	case "quasi01":
		if !(eps > 0) || math.IsInf(eps, 0) {
			return nil, fmt.Errorf("loss: quasi01 needs eps > 0, got %g", eps)
		}
		return Quasi01{Eps: eps}, nil
	}
	return nil, fmt.Errorf("loss: unknown loss %q (available: logistic_loss, hinge, quasi01)", name)
}

// OfJet applies l to a jet margin by the chain rule.
func OfJet(l Loss, m ad.Jet) ad.Jet {
	v, d1, d2 := l.Eval(m.V)
	return ad.Chain(m, v, d1, d2)
}

// LogisticLoss is logistic_loss(m) on a jet.
func LogisticLoss(m ad.Jet) ad.Jet { return OfJet(Logistic{}, m) }

// HingeLoss is hinge(m) on a jet.
func HingeLoss(m ad.Jet) ad.Jet { return OfJet(Hinge{}, m) }

// Quasi01Loss is quasi01(m, eps) on a jet.
func Quasi01Loss(m ad.Jet, eps float64) ad.Jet { return OfJet(Quasi01{Eps: eps}, m) }
