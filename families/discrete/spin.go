package discrete

import "math"

// Spin is the exponential family on x ∈ {−1, +1} with natural parameter H:
//
//	p(x) = exp(H x) / (2 cosh H),   E[x] = tanh H,   p(+1) = σ(2H).
//
// State 0 is −1 and state 1 is +1 (the graph package's order). Products of
// spin beliefs add fields, powers scale them; a Spin is a two-state Belief
// with L = (−H, +H).
type Spin struct{ H float64 }

// SpinFromBelief returns the field of a two-state belief: H = (L₁ − L₀)/2.
func SpinFromBelief(b Belief) Spin { return Spin{H: (b.L[1] - b.L[0]) / 2} }

// SpinFromMean returns the spin belief with E[x] = m, |m| < 1: H = atanh m.
func SpinFromMean(m float64) (Spin, bool) {
	if !(m > -1 && m < 1) {
		return Spin{}, false
	}
	return Spin{H: math.Atanh(m)}, true
}

// Belief returns the two-state log-domain belief (−H, +H).
func (s Spin) Belief() Belief { return Belief{L: []float64{-s.H, s.H}} }

// Mul, Div and Pow are the family's product, quotient and power.
func (s Spin) Mul(t Spin) Spin       { return Spin{H: s.H + t.H} }
func (s Spin) Div(t Spin) Spin       { return Spin{H: s.H - t.H} }
func (s Spin) Pow(a float64) Spin    { return Spin{H: a * s.H} }
func (s Spin) Mean() float64         { return math.Tanh(s.H) }
func (s Spin) ProbPlus() float64     { return sigmoid(2 * s.H) }
func (s Spin) Probs() [2]float64     { return [2]float64{sigmoid(-2 * s.H), sigmoid(2 * s.H)} }
func (s Spin) LogPartition() float64 { return logCosh(s.H) + math.Ln2 }

// Entropy is H(p) = log(2 cosh H) − H tanh H, in nats.
func (s Spin) Entropy() float64 {
	return math.Max(s.LogPartition()-s.H*math.Tanh(s.H), 0)
}

// logCosh is log cosh x = |x| + log1p(e^{−2|x|}) − log 2, stable for large |x|.
func logCosh(x float64) float64 {
	a := math.Abs(x)
	return a + math.Log1p(math.Exp(-2*a)) - math.Ln2
}

// sigmoid is 1/(1 + e^{−x}), evaluated without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
