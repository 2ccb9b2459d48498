package factor

import (
	"fmt"
	"math"
)

// ParamError is a constructor's complaint about one parameter; compile
// reports it at that argument's position.
type ParamError struct {
	Param string
	Msg   string
}

func (e *ParamError) Error() string { return e.Msg }

// Constructor builds a likelihood site from its parameters by name (the
// builtin's parameters other than the projection, defaults applied),
// validating their ranges.
type Constructor func(params map[string]float64) (Site, error)

// LikelihoodKind is a likelihood kind's entry point for compile: the
// name of the parameter that holds the latent projection, and the
// validating constructor.
type LikelihoodKind interface {
	Kind
	Projection() string
	New(params map[string]float64) (Site, error)
}

func spinY(y float64) error {
	if y != 1 && y != -1 {
		return fmt.Errorf("class label %g, want −1 or +1", y)
	}
	return nil
}

func finiteY(y float64) error {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("observation %g is not finite", y)
	}
	return nil
}

// Multimodal is implemented by likelihoods that may not be log-concave in
// their argument: Multimodal reports whether, with these parameters, the
// likelihood is not log-concave, so that a posterior with it can have
// several modes and EP's fixed point can sit at a minor one.
type Multimodal interface {
	Multimodal() bool
}
