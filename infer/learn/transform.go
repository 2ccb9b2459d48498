package learn

import (
	"fmt"
	"math"
)

// TransformKind names how a parameter x is mapped to the unconstrained
// variable u that the optimiser moves.
type TransformKind int

const (
	// Identity: x = u, for parameters on the whole real line (e.g. log ℓ).
	Identity TransformKind = iota
	// Log: x = e^u, for positive parameters (ℓ, σ², a noise variance).
	Log
	// Logit: x = Lo + (Hi − Lo) σ(u), σ(u) = 1/(1 + e^{−u}), for a parameter
	// in the open interval (Lo, Hi) such as the step likelihood's ε.
	Logit
)

var transformNames = [...]string{"identity", "log", "logit"}

func (k TransformKind) String() string {
	if k < 0 || int(k) >= len(transformNames) {
		return fmt.Sprintf("TransformKind(%d)", int(k))
	}
	return transformNames[k]
}

// Transform is a parameter's map x(u); Lo and Hi are used by Logit.
type Transform struct {
	Kind   TransformKind
	Lo, Hi float64
}

// ToU returns u(x); it fails when x is outside the transform's domain.
func (t Transform) ToU(x float64) (float64, error) {
	switch t.Kind {
	case Identity:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("value %g is not finite", x)
		}
		return x, nil
	case Log:
		if !(x > 0) || math.IsInf(x, 1) {
			return 0, fmt.Errorf("value %g is not positive (log transform)", x)
		}
		return math.Log(x), nil
	case Logit:
		if !(t.Lo < t.Hi) {
			return 0, fmt.Errorf("logit bounds [%g, %g] need lo < hi", t.Lo, t.Hi)
		}
		if !(x > t.Lo && x < t.Hi) {
			return 0, fmt.Errorf("value %g is not inside the open interval (%g, %g)", x, t.Lo, t.Hi)
		}
		p := (x - t.Lo) / (t.Hi - t.Lo)
		return math.Log(p) - math.Log1p(-p), nil
	}
	return 0, fmt.Errorf("unknown transform %v", t.Kind)
}

// ToX returns x(u) and dx/du.
func (t Transform) ToX(u float64) (x, dxdu float64) {
	switch t.Kind {
	case Log:
		x = math.Exp(u)
		return x, x
	case Logit:
		s := sigmoid(u)
		w := t.Hi - t.Lo
		return t.Lo + w*s, w * s * sigmoid(-u)
	}
	return u, 1
}

func sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}
