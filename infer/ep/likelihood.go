package ep

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/internal/mathx"
	"gonum.org/v1/gonum/integrate/quad"
)

// Likelihood is a site factor p(y | f) on one scalar projection f = aᵀw.
//
// EP only needs, for a Gaussian cavity N(f; m, v) and a power u (u = 1 for
// EP and relaxed EP, u = α for power EP), the log normaliser of the tilted
// distribution and its first two derivatives in the cavity mean,
//
//	log Z(m, v) = log ∫ p(y | f)^u N(f; m, v) df,   d1 = ∂ log Z/∂m,   d2 = ∂² log Z/∂m²,
//
// from which the tilted moments are m̂ = m + v·d1 and v̂ = v + v²·d2
// (Minka 2001, eqs 3.18–3.19; rodrigues eqs 15–17 for the probit case).
type Likelihood interface {
	// Name is the likelihood's name in fg's standard library ("probit", ...).
	Name() string
	// Tilted returns log Z, d1 and d2 as above.
	Tilted(y, m, v, u float64) (logZ, d1, d2 float64)
	// ExpLogLik returns E[log p(y | f)] under the normalised tilted
	// distribution p̂(f) ∝ p(y | f) N(f; m, v); relaxed EP's cost needs it.
	ExpLogLik(y, m, v float64) float64
	// Prob returns the predictive p(y = +1) = ∫ p(+1 | f) N(f; m, v) df, and
	// false when the likelihood is not a binary classifier.
	Prob(m, v float64) (float64, bool)
	// validY reports whether y is a legal observation.
	validY(y float64) error
}

// Probit is the classification likelihood p(y | f) = Φ(y f), y ∈ {−1, +1}
// (GPML's likErf). With u = 1 the tilted moments are closed form
// (rodrigues eqs 15–18):
//
//	z = y m / √(1 + v),  log Z = log Φ(z),  r = N(z)/Φ(z),
//	d1 = y r / √(1 + v),  d2 = −r (z + r) / (1 + v).
//
// For u ≠ 1 (power EP) Φ(y f)^u has no closed form and Tilted integrates by
// 96-point Gauss–Hermite quadrature on the cavity.
type Probit struct{}

// Step is the labelling-noise likelihood p(y | f) = Eps + (1 − 2 Eps)·Θ(y f)
// (qi-guo eq. 8), 0 ≤ Eps < ½; Eps = 0 is the noise-free step. Its power is
// again a step, p^u = Eps^u + ((1−Eps)^u − Eps^u)·Θ(y f) (qi-guo long version,
// Appendix C eq. 41), so with a = Eps^u, b = (1−Eps)^u − Eps^u:
//
//	z = y m / √v,  Z = a + b Φ(z),  r = b N(z)/Z,
//	d1 = y r / √v,  d2 = −r (z + r) / v.
type Step struct{ Eps float64 }

// Gaussian is the regression likelihood p(y | f) = N(y; f, Var). EP with it
// is exact: one sweep gives the closed-form GP posterior and evidence.
type Gaussian struct{ Var float64 }

func (Probit) Name() string   { return "probit" }
func (Step) Name() string     { return "step" }
func (Gaussian) Name() string { return "gaussian" }

func (Probit) validY(y float64) error { return binaryY(y) }
func (l Step) validY(y float64) error {
	if !(l.Eps >= 0 && l.Eps < 0.5) {
		return fmt.Errorf("ep: step eps = %g, want 0 ≤ eps < 0.5", l.Eps)
	}
	return binaryY(y)
}
func (l Gaussian) validY(y float64) error {
	if !(l.Var > 0) || math.IsInf(l.Var, 1) {
		return fmt.Errorf("ep: gaussian likelihood variance %g, want > 0", l.Var)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("ep: observation %g is not finite", y)
	}
	return nil
}

func binaryY(y float64) error {
	if y != 1 && y != -1 {
		return fmt.Errorf("ep: class label %g, want −1 or +1", y)
	}
	return nil
}

func (l Probit) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	if u != 1 {
		return ghTilted(func(f float64) float64 { return mathx.LogPhi(y * f) }, m, v, u)
	}
	s := math.Sqrt(1 + v)
	z := y * m / s
	r := mathx.InvMills(z)
	return mathx.LogPhi(z), y * r / s, -r * (z + r) / (1 + v)
}

func (l Probit) ExpLogLik(y, m, v float64) float64 {
	return ghExpLog(func(f float64) float64 { return mathx.LogPhi(y * f) }, m, v)
}

func (l Probit) Prob(m, v float64) (float64, bool) {
	return mathx.Phi(m / math.Sqrt(1+v)), true
}

func (l Step) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	sv := math.Sqrt(v)
	z := y * m / sv
	logA := u * math.Log(l.Eps) // −Inf when Eps = 0
	b := math.Pow(1-l.Eps, u) - math.Exp(logA)
	if b <= 0 {
		return logA, 0, 0
	}
	var r float64
	if l.Eps == 0 {
		logZ, r = mathx.LogPhi(z), mathx.InvMills(z)
	} else {
		logZ = mathx.LogAddExp(logA, math.Log(b)+mathx.LogPhi(z))
		r = math.Exp(math.Log(b) + mathx.LogN(z) - logZ)
	}
	return logZ, y * r / sv, -r * (z + r) / v
}

// ExpLogLik is closed form: the tilted mass on the correct side is
// (1−Eps)Φ(z)/Z, so E[log p] = [(1−ε)log(1−ε)Φ(z) + ε log ε (1 − Φ(z))]/Z
// (qi-guo long version, first term of eq. 36).
func (l Step) ExpLogLik(y, m, v float64) float64 {
	if l.Eps == 0 {
		return 0
	}
	e := l.Eps
	z := y * m / math.Sqrt(v)
	pc, pw := mathx.Phi(z), mathx.Phi(-z)
	Z := e + (1-2*e)*pc
	return ((1-e)*math.Log(1-e)*pc + e*math.Log(e)*pw) / Z
}

func (l Step) Prob(m, v float64) (float64, bool) {
	return l.Eps + (1-2*l.Eps)*mathx.Phi(m/math.Sqrt(v)), true
}

func (l Gaussian) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	s := v + l.Var/u
	d := y - m
	logZ = -0.5*math.Log(2*math.Pi*s) - 0.5*d*d/s +
		0.5*(1-u)*math.Log(2*math.Pi*l.Var) - 0.5*math.Log(u)
	return logZ, d / s, -1 / s
}

// ExpLogLik: the tilted is N(m̂, v̂), so E[log N(y; f, σ²)] = −½ log 2πσ² − ((y − m̂)² + v̂)/(2σ²).
func (l Gaussian) ExpLogLik(y, m, v float64) float64 {
	_, d1, d2 := l.Tilted(y, m, v, 1)
	mh, vh := m+v*d1, v+v*v*d2
	return -0.5*math.Log(2*math.Pi*l.Var) - ((y-mh)*(y-mh)+vh)/(2*l.Var)
}

func (l Gaussian) Prob(m, v float64) (float64, bool) { return 0, false }

const ghN = 96

var ghX, ghW = func() ([]float64, []float64) {
	x, w := make([]float64, ghN), make([]float64, ghN)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	return x, w
}()

// ghTilted integrates p^u against N(m, v) with Gauss–Hermite nodes
// f_k = m + √(2v) x_k, in the log domain, and returns log Z and the
// derivatives via the tilted mean and variance: d1 = (m̂ − m)/v,
// d2 = (v̂ − v)/v².
func ghTilted(logp func(float64) float64, m, v, u float64) (logZ, d1, d2 float64) {
	s := math.Sqrt(2 * v)
	lw := make([]float64, ghN)
	mx := math.Inf(-1)
	for k, x := range ghX {
		lw[k] = math.Log(ghW[k]) + u*logp(m+s*x)
		mx = math.Max(mx, lw[k])
	}
	if math.IsInf(mx, -1) {
		return mx, 0, 0
	}
	var z, e1, e2 float64
	for k, x := range ghX {
		w := math.Exp(lw[k] - mx)
		d := s * x
		z += w
		e1 += w * d
		e2 += w * d * d
	}
	e1 /= z
	vh := e2/z - e1*e1
	return mx + math.Log(z) - 0.5*math.Log(math.Pi), e1 / v, (vh - v) / (v * v)
}

// ghExpLog returns E[log p] under p̂ ∝ p·N(m, v) by Gauss–Hermite quadrature.
func ghExpLog(logp func(float64) float64, m, v float64) float64 {
	s := math.Sqrt(2 * v)
	lw := make([]float64, ghN)
	lp := make([]float64, ghN)
	mx := math.Inf(-1)
	for k, x := range ghX {
		lp[k] = logp(m + s*x)
		lw[k] = math.Log(ghW[k]) + lp[k]
		mx = math.Max(mx, lw[k])
	}
	var z, e float64
	for k := range ghX {
		w := math.Exp(lw[k] - mx)
		z += w
		if w > 0 {
			e += w * lp[k]
		}
	}
	return e / z
}
