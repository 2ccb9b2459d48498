// Package discrete holds fg's beliefs over finite state spaces in the log
// domain: Belief, an unnormalised categorical distribution over K states
// stored by its natural parameters (log potentials), and Spin, the
// one-parameter exponential family on {−1, +1}.
//
// Products, quotients and powers of beliefs — the operations of BP, fractional
// BP and relaxed BP messages — are sums, differences and scalings of log
// potentials, so they never underflow; probabilities are formed only on
// demand with the log-sum-exp shift
//
//	log Σ_k e^{l_k} = m + log Σ_k e^{l_k − m},   m = max_k l_k.
package discrete

import "math"

// Belief is an unnormalised distribution p(k) ∝ exp(L[k]) over K = len(L)
// states. A state with probability zero has L[k] = −Inf. Methods with a
// Belief result write into the receiver and return it, so chains allocate
// nothing.
type Belief struct{ L []float64 }

// Uniform returns the uniform belief over k states (all log potentials 0).
func Uniform(k int) Belief { return Belief{L: make([]float64, k)} }

// FromProbs returns the belief with p(k) ∝ p[k]. It reports false if an
// entry is negative or NaN or if all entries are zero.
func FromProbs(p []float64) (Belief, bool) {
	b := Belief{L: make([]float64, len(p))}
	pos := false
	for k, x := range p {
		if !(x >= 0) || math.IsInf(x, 1) {
			return Belief{}, false
		}
		b.L[k] = math.Log(x)
		pos = pos || x > 0
	}
	return b, pos
}

// K is the number of states.
func (b Belief) K() int { return len(b.L) }

// Clone returns an independent copy.
func (b Belief) Clone() Belief { return Belief{L: append([]float64(nil), b.L...)} }

// Mul multiplies by c state-wise: L ← L + c.L.
func (b Belief) Mul(c Belief) Belief {
	for k := range b.L {
		b.L[k] += c.L[k]
	}
	return b
}

// Div divides by c state-wise: L ← L − c.L. States where c is zero (−Inf)
// are left at −Inf when b is also zero there (0/0 := 0, the convention of
// message division in BP) and become +Inf otherwise.
func (b Belief) Div(c Belief) Belief {
	for k := range b.L {
		if math.IsInf(b.L[k], -1) && math.IsInf(c.L[k], -1) {
			continue
		}
		b.L[k] -= c.L[k]
	}
	return b
}

// Pow raises to the power a: L ← a·L (with 0^a = 0 for a > 0).
func (b Belief) Pow(a float64) Belief {
	for k := range b.L {
		if !math.IsInf(b.L[k], -1) {
			b.L[k] *= a
		}
	}
	return b
}

// LogNorm is log Σ_k exp(L[k]), computed with the max shift; −Inf for the
// zero belief.
func (b Belief) LogNorm() float64 { return LogSumExp(b.L) }

// Normalize shifts L so that Σ_k exp(L[k]) = 1 and returns the log of the
// normaliser it removed. The zero belief is left unchanged (−Inf returned).
func (b Belief) Normalize() float64 {
	z := LogSumExp(b.L)
	if math.IsInf(z, 0) || math.IsNaN(z) {
		return z
	}
	for k := range b.L {
		b.L[k] -= z
	}
	return z
}

// Probs writes the normalised probabilities into p (allocated if nil or too
// short) and returns it.
func (b Belief) Probs(p []float64) []float64 {
	if len(p) < len(b.L) {
		p = make([]float64, len(b.L))
	}
	p = p[:len(b.L)]
	z := LogSumExp(b.L)
	for k, l := range b.L {
		p[k] = math.Exp(l - z)
	}
	return p
}

// Entropy is H = −Σ_k p_k log p_k of the normalised belief, in nats, with
// 0 log 0 = 0:  H = log Z − Σ_k p_k L_k.
func (b Belief) Entropy() float64 {
	z := LogSumExp(b.L)
	h := z
	for _, l := range b.L {
		if !math.IsInf(l, -1) {
			h -= math.Exp(l-z) * l
		}
	}
	return math.Max(h, 0)
}

// KL is KL(p‖q) = Σ_k p_k log(p_k/q_k) between the normalised beliefs; +Inf
// if q is zero where p is not.
func KL(p, q Belief) float64 {
	zp, zq := LogSumExp(p.L), LogSumExp(q.L)
	kl := 0.0
	for k, l := range p.L {
		if math.IsInf(l, -1) {
			continue
		}
		kl += math.Exp(l-zp) * ((l - zp) - (q.L[k] - zq))
	}
	return math.Max(kl, 0)
}

// LogSumExp is log Σ exp(x_k) with the max shift, −Inf for an empty or
// all −Inf slice, +Inf if any entry is +Inf.
func LogSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}
