package factor

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var mixtureBuiltin = stdlib.Builtin{Name: "mixture", Kind: stdlib.Distribution, Variadic: true,
	Domains: []graph.Domain{graph.Real, graph.Int, graph.Spin}, Observed: true,
	Params: []stdlib.Param{stdlib.Required("weights", stdlib.VectorT, "mixing weights: non-negative, summing to one"),
		stdlib.Required("components", stdlib.Any, "two or more likelihood calls, e.g. normal(x, 1), normal(0, 10); a component's projection may be data (no latent)")},
	Doc: "mixture likelihood p(y|a) = Σ_k w_k p_k(y|a) of likelihood components on one latent projection, or on none (a clutter term)"}

// MaxComponents bounds the number of components of one mixture.
const MaxComponents = 64

// Mixture is the likelihood p(y | f) = Σ_k W_k p_k(y | f) of components
// that are likelihood sites on the same projection f = aᵀw (Comps[k] ≠ nil)
// or densities of y alone (Comps[k] = nil, with log p_k(y) in LogC[k]:
// the clutter term of Minka's clutter problem, minka-ep section 3.3).
//
// Its tilted distribution under a cavity N(f; m, v) is the mixture of the
// components' tilted distributions (a constant component's is the cavity):
//
//	Z = Σ_k W_k Z_k,   r_k = W_k Z_k / Z,
//	d1 = Σ_k r_k d1_k,   d2 = Σ_k r_k (d2_k + d1_k²) − d1²,
//
// by the law of total expectation and variance with m̂_k = m + v d1_k and
// v̂_k = v + v² d2_k (minka-ep eqs 3.18–3.19 per component). This is closed
// form whenever each component's Tilted is. A power p^u (u ≠ 1, power EP)
// of a sum has no such form: Tilted then integrates log p(y | f) = log Σ_k
// W_k p_k(y | f) by composite Gauss–Legendre quadrature (quadTilted) over
// the cavity and each component's tilted window, as ExpLogLik (relaxed EP)
// does; compile refuses both for discontinuous components.
type Mixture struct {
	W     []float64
	Comps []Site
	LogC  []float64
}

func (Mixture) Name() string             { return "mixture" }
func (Mixture) Role() Role               { return Likelihood }
func (Mixture) Builtin() *stdlib.Builtin { return &mixtureBuiltin }
func (Mixture) Support() string          { return "an observation every component accepts" }

// Quality: power EP and relaxed EP integrate the mixture's log-density
// numerically and have no independent reference yet.
func (Mixture) Quality(c Column) Quality {
	if c.PowerOrRelaxed() {
		return Experimental
	}
	return Stable
}

// Params lists the weights and the components' parameters, so that
// learning, which has no gradient rule for mixtures, refuses them.
func (l Mixture) Params() map[string]float64 {
	if len(l.W) == 0 {
		return map[string]float64{"weights": 1}
	}
	p := map[string]float64{}
	for k, w := range l.W {
		p["w"+strconv.Itoa(k)] = w
		if l.Comps[k] != nil {
			for name, v := range l.Comps[k].Params() {
				p[strconv.Itoa(k)+"."+name] = v
			}
		}
	}
	return p
}

// CheckY asks every latent component; a constant component's density
// was evaluated at y by compile.
func (l Mixture) CheckY(y float64) error {
	for _, c := range l.Comps {
		if c != nil {
			if err := c.CheckY(y); err != nil {
				return err
			}
		}
	}
	return finiteY(y)
}

// HasJump reports whether a component's density jumps (step).
func (l Mixture) HasJump() bool {
	for _, c := range l.Comps {
		if _, ok := c.(Discontinuous); ok {
			return true
		}
	}
	return false
}

// Tilted: see the type's comment.
func (l Mixture) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	if u != 1 {
		logZ, d1, d2, _ = quadTilted(func(f float64) (float64, float64, float64) { return l.LogLik(y, f) }, m, v, u, l.windows(y, m, v)...)
		return logZ, d1, d2
	}
	return l.mix(func(c Site) (float64, float64, float64) { return c.(Tilted).Tilted(y, m, v, 1) })
}

// mix combines each component's (log W_k + value, first, second
// derivative) — each latent component's from rule, a constant one's
// (log C_k, 0, 0) — by combine.
func (l Mixture) mix(rule func(c Site) (float64, float64, float64)) (float64, float64, float64) {
	var buf [3 * 8]float64
	t := buf[:0]
	if len(l.W) > 8 {
		t = make([]float64, 0, 3*len(l.W))
	}
	mx := math.Inf(-1)
	for k, w := range l.W {
		lv, a, b := l.LogC[k], 0.0, 0.0
		if l.Comps[k] != nil {
			lv, a, b = rule(l.Comps[k])
		}
		lv += math.Log(w)
		t = append(t, lv, a, b)
		mx = math.Max(mx, lv)
	}
	return combine(t, mx)
}

// combine turns (log W_k Z_k, d1_k, d2_k) triples with max log term mx
// into the mixture's log Z, d1 and d2 (also used for LogLik's value,
// gradient and Hessian, which combine the same way).
func combine(t []float64, mx float64) (logZ, d1, d2 float64) {
	if math.IsInf(mx, -1) {
		return mx, 0, 0
	}
	var z, s1, s2 float64
	for i := 0; i < len(t); i += 3 {
		r := math.Exp(t[i] - mx)
		z += r
		s1 += r * t[i+1]
		s2 += r * (t[i+2] + t[i+1]*t[i+1])
	}
	d1 = s1 / z
	return mx + math.Log(z), d1, s2/z - d1*d1
}

// LogLik is log Σ_k W_k p_k(y | f) with g = Σ r_k g_k and
// h = Σ r_k (h_k + g_k²) − g², r_k the components' responsibilities.
func (l Mixture) LogLik(y, f float64) (v, g, h float64) {
	return l.mix(func(c Site) (float64, float64, float64) { return c.(LogDensity).LogLik(y, f) })
}

// ExpLogLik is E[log p(y | f)] under the tilted distribution, by
// quadTilted.
func (l Mixture) ExpLogLik(y, m, v float64) float64 {
	_, _, _, e := quadTilted(func(f float64) (float64, float64, float64) { return l.LogLik(y, f) }, m, v, 1, l.windows(y, m, v)...)
	return e
}

// windows are the latent components' tilted means and standard deviations
// (u = 1): where the mixture's tilted distribution has its modes.
func (l Mixture) windows(y, m, v float64) []window {
	var ws []window
	for _, c := range l.Comps {
		if c != nil {
			_, d1, d2 := c.(Tilted).Tilted(y, m, v, 1)
			if vh := v + v*v*d2; vh > 0 {
				ws = append(ws, window{m + v*d1, math.Sqrt(vh)})
			}
		}
	}
	return ws
}

// Prob: a mixture is not reported as a classifier.
func (Mixture) Prob(m, v float64) (float64, bool) { return 0, false }

// CheckWeights validates mixing weights: finite, non-negative and summing
// to one within WeightTol.
func CheckWeights(w []float64) error {
	k, sum := checkSimplex(w)
	switch {
	case k >= 0:
		return fmt.Errorf("mixture weight %d is %g; weights must be non-negative and finite", k, w[k])
	case !math.IsNaN(sum):
		return fmt.Errorf("mixture weights sum to %.12g; they must sum to 1 (within %g)", sum, WeightTol)
	}
	return nil
}

// CheckProbabilities validates a probability vector: finite, non-negative
// and summing to one within WeightTol.
func CheckProbabilities(p []float64) error {
	k, sum := checkSimplex(p)
	switch {
	case k >= 0:
		return fmt.Errorf("probability %d is %g; probabilities must be non-negative and finite", k, p[k])
	case !math.IsNaN(sum):
		return fmt.Errorf("the probabilities sum to %.12g; they must sum to 1 (within %g)", sum, WeightTol)
	}
	return nil
}

// checkSimplex returns the index of the first entry of w that is negative
// or not finite (sum unused), or −1 and the sum of w when it is not one
// within WeightTol, or −1 and NaN when w is a probability vector.
func checkSimplex(w []float64) (k int, sum float64) {
	for k, x := range w {
		if !(x >= 0) || math.IsInf(x, 1) {
			return k, 0
		}
		sum += x
	}
	if math.Abs(sum-1) > WeightTol {
		return -1, sum
	}
	return -1, math.NaN()
}

// WeightTol is the tolerance on the sum of mixing weights.
const WeightTol = 1e-9

// Multimodal: a mixture is not log-concave in general, even of
// log-concave components (Multimodal).
func (Mixture) Multimodal() bool { return true }
