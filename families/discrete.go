package families

import (
	"fmt"
	"math"
)

// LogFloor is the smallest log-probability a discrete message holds: a
// zero probability (a forbidden transition) is stored as e^LogFloor ≈
// 1e-304, so that quotients of messages stay finite; its effect on any
// marginal is below 1e-290.
const LogFloor = -700

// Discrete is a distribution over K states held by its unnormalised log
// probabilities LogP: natural parameters η = LogP with sufficient
// statistics the indicators [x = k] (counting measure); the flat message is
// η = 0.
type Discrete struct {
	LogP []float64
}

// NewDiscrete is the distribution with probabilities p (K ≥ 1 entries ≥ 0,
// not all zero; they are normalised).
func NewDiscrete(p []float64) (Discrete, error) {
	out := Discrete{LogP: make([]float64, len(p))}
	var s float64
	for k, x := range p {
		if !(x >= 0) || math.IsInf(x, 1) {
			return Discrete{}, fmt.Errorf("discrete: probability %d is %g", k, x)
		}
		s += x
		out.LogP[k] = max(math.Log(x), LogFloor)
	}
	if !(s > 0) {
		return Discrete{}, fmt.Errorf("discrete: the probabilities are all zero")
	}
	return out, nil
}

// LogNormalizer is log Σ exp(LogP).
func (d Discrete) LogNormalizer() float64 { return logSumExp(d.LogP) }

// Probs writes the normalised probabilities to out.
func (d Discrete) Probs(out []float64) {
	l := d.LogNormalizer()
	for k, x := range d.LogP {
		out[k] = math.Exp(x - l)
	}
}

func logSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(m, 0) {
		return m
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// DiscreteSpace is the K-state discrete family as a Space.
type DiscreteSpace struct{ K int }

func (s DiscreteSpace) Len() int { return s.K }

func (DiscreteSpace) Proper(eta []float64) bool {
	for _, x := range eta {
		if math.IsNaN(x) || math.IsInf(x, 1) {
			return false
		}
	}
	return true
}

func (DiscreteSpace) LogNormalizer(eta []float64) float64 { return logSumExp(eta) }
func (DiscreteSpace) ESS(eta, out []float64)              { Discrete{eta}.Probs(out) }

// Project is log ess, floored at LogFloor.
func (DiscreteSpace) Project(ess, out []float64) error {
	for k, p := range ess {
		if !(p >= 0) || math.IsInf(p, 1) {
			return fmt.Errorf("discrete projection: probability %g: %w", p, ErrImproper)
		}
		out[k] = max(math.Log(p), LogFloor)
	}
	return nil
}

func (DiscreteSpace) Moments(eta, mean, variance []float64) {
	Discrete{eta}.Probs(mean)
	for k, p := range mean {
		variance[k] = p * (1 - p)
	}
}

func (s DiscreteSpace) Params(eta []float64) []float64 {
	p := make([]float64, len(eta))
	Discrete{eta}.Probs(p)
	return p
}

func (s DiscreteSpace) String(eta []float64) string { return fmtParams("Discrete", s.Params(eta)) }
