package discrete

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

const tol = 1e-12

// Reference values below are computed directly in the probability domain.
func TestBeliefAlgebraAgainstProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		k := 2 + rng.IntN(5)
		p, q := make([]float64, k), make([]float64, k)
		for i := range p {
			p[i], q[i] = rng.Float64()+0.01, rng.Float64()+0.01
		}
		bp, _ := FromProbs(p)
		bq, _ := FromProbs(q)
		a := 0.3 + rng.Float64()
		prod := bp.Clone().Mul(bq).Probs(nil)
		quot := bp.Clone().Div(bq).Probs(nil)
		pow := bp.Clone().Pow(a).Probs(nil)
		var zp, zq, zd, za float64
		for i := range p {
			zp += p[i] * q[i]
			zq += p[i] / q[i]
			za += math.Pow(p[i], a)
			zd += p[i]
		}
		h, kl := 0.0, 0.0
		sq := 0.0
		for i := range q {
			sq += q[i]
		}
		for i := range p {
			check(t, "product", prod[i], p[i]*q[i]/zp)
			check(t, "quotient", quot[i], p[i]/q[i]/zq)
			check(t, "power", pow[i], math.Pow(p[i], a)/za)
			h -= p[i] / zd * math.Log(p[i]/zd)
			kl += p[i] / zd * math.Log((p[i]/zd)/(q[i]/sq))
		}
		check(t, "entropy", bp.Entropy(), h)
		check(t, "KL", KL(bp, bq), kl)
		check(t, "lognorm", bp.LogNorm(), math.Log(zd))
		c := bp.Clone()
		check(t, "normalize", c.Normalize(), math.Log(zd))
		check(t, "normalized", c.LogNorm(), 0)
	}
}

func check(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
		t.Errorf("%s: got %.17g want %.17g", what, got, want)
	}
}

func TestExtremeLogPotentials(t *testing.T) {
	b := Belief{L: []float64{-1000, 0, -2000}}
	p := b.Probs(nil)
	if p[1] != 1 || p[0] != 0 || math.IsNaN(p[2]) {
		t.Fatalf("probs %v", p)
	}
	check(t, "lse", LogSumExp([]float64{1000, 1000}), 1000+math.Ln2)
	z := Belief{L: []float64{math.Inf(-1), 0}}
	if h := z.Entropy(); h != 0 {
		t.Errorf("entropy of a point mass %v", h)
	}
	d := z.Clone().Div(Belief{L: []float64{math.Inf(-1), 1}})
	if !math.IsInf(d.L[0], -1) || d.L[1] != -1 {
		t.Errorf("0/0 division: %v", d.L)
	}
	if _, ok := FromProbs([]float64{0, 0}); ok {
		t.Error("all-zero probabilities accepted")
	}
	if _, ok := FromProbs([]float64{math.NaN(), 1}); ok {
		t.Error("NaN accepted")
	}
}

func TestSpinMatchesTwoStateBelief(t *testing.T) {
	for _, h := range []float64{-40, -3, -0.2, 0, 0.7, 5, 400} {
		s := Spin{H: h}
		b := s.Belief()
		p := b.Probs(nil)
		q := s.Probs()
		check(t, "p(-1)", q[0], p[0])
		check(t, "p(+1)", q[1], p[1])
		check(t, "mean", s.Mean(), p[1]-p[0])
		check(t, "entropy", s.Entropy(), b.Entropy())
		check(t, "log partition", s.LogPartition(), b.LogNorm())
		check(t, "round trip", SpinFromBelief(b).H, h)
		check(t, "product", s.Mul(Spin{0.5}).H, h+0.5)
		check(t, "quotient", s.Div(Spin{0.5}).H, h-0.5)
		check(t, "power", s.Pow(0.8).H, 0.8*h)
	}
	if s, ok := SpinFromMean(math.Tanh(1.3)); !ok || math.Abs(s.H-1.3) > 1e-12 {
		t.Errorf("SpinFromMean: %v %v", s, ok)
	}
	if _, ok := SpinFromMean(1); ok {
		t.Error("mean 1 accepted")
	}
}
