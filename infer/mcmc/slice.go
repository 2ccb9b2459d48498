package mcmc

import (
	"errors"
	"math"
	"math/rand/v2"
)

// errShrank: the bracket of an elliptical slice step shrank maxShrink
// times without an acceptance (a likelihood that is zero almost
// everywhere near the current point).
var errShrank = errors.New("elliptical slice bracket shrank without acceptance")

// ellipticalSlice is the bracket-shrinking loop of one elliptical slice
// sampling step (Murray, Adams & MacKay 2010, Fig. 2): with the current
// log-likelihood ll, a level log y = ll + log u (u ∈ (0, 1]), an angle
// θ ~ U[0, 2π) and the bracket [θ − 2π, θ], it proposes the point
// x cos θ + ν sin θ of the ellipse through the current state x and the
// auxiliary draw ν — at(cos θ, sin θ) writes that point where the caller
// keeps it and returns its log-likelihood — and shrinks the bracket
// towards 0 (the current state) until a proposal is above the level. It
// returns the accepted log-likelihood, or errShrank after maxShrink
// proposals, or at's error.
func ellipticalSlice(rng *rand.Rand, ll float64, at func(c, s float64) (float64, error)) (float64, error) {
	logY := ll + math.Log(1-rng.Float64()) // log(u), u ∈ (0, 1]
	theta := 2 * math.Pi * rng.Float64()
	lo, hi := theta-2*math.Pi, theta
	for range maxShrink {
		v, err := at(math.Cos(theta), math.Sin(theta))
		if err != nil {
			return 0, err
		}
		if v > logY {
			return v, nil
		}
		if theta < 0 {
			lo = theta
		} else {
			hi = theta
		}
		theta = lo + (hi-lo)*rng.Float64()
	}
	return 0, errShrank
}
