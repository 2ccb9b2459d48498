package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Defaults of the adaptive importance proposal.
const (
	propNu      = 5   // degrees of freedom of the Student-t component
	propScale   = 1.5 // its scale relative to the pilot posterior sd
	propDefense = 0.1 // weight α of the prior component
	propRounds  = 3   // pilot rounds
)

// proposal is the importance density: the prior N(m0, Σ0) alone (t == nil)
// or the defensive mixture (Hesterberg 1995)
//
//	q(w) = α N(w; m0, Σ0) + (1 − α) T_ν(w; μ, s² C),
//
// whose weights N·exp(ℓ)/q ≤ exp(ℓ)/α stay bounded like those of the prior
// proposal, while the Student-t component, fitted to a pilot posterior
// (μ, C), puts most samples where the posterior is.
type proposal struct {
	prior, t *frame
}

func (q *proposal) String() string {
	if q.t == nil {
		return "prior"
	}
	return fmt.Sprintf("%.1f·prior + %.1f·t(nu = %d, pilot mean, (%.1f sd)²)", propDefense, 1-propDefense, propNu, propScale)
}

// draw sets w ~ q and returns log N(w; m0, Σ0) − log q(w) (0 for the prior);
// eps and u are scratch of length d.
func (q *proposal) draw(rng *rand.Rand, w, eps, u []float64) float64 {
	for j := range eps {
		eps[j] = rng.NormFloat64()
	}
	if q.t == nil {
		q.prior.toW(eps, w)
		return 0
	}
	if rng.Float64() < propDefense {
		q.prior.toW(eps, w)
	} else {
		g := 0.0 // χ²_ν as a sum of ν squared normals
		for k := 0; k < propNu; k++ {
			z := rng.NormFloat64()
			g += z * z
		}
		r := math.Sqrt(propNu / g)
		for j := range eps {
			eps[j] *= r
		}
		q.t.toW(eps, w)
	}
	lp := q.prior.logDensity(w, u)
	lt := q.logT(w, u)
	a, b := math.Log(propDefense)+lp, math.Log1p(-propDefense)+lt
	m := math.Max(a, b)
	return lp - (m + math.Log(math.Exp(a-m)+math.Exp(b-m)))
}

// logT is the multivariate Student-t log density
// log Γ((ν+d)/2) − log Γ(ν/2) − (d/2) log(νπ) − log|det L| − ((ν+d)/2) log(1 + |L⁻¹(w − μ)|²/ν).
func (q *proposal) logT(w, u []float64) float64 {
	q.t.toU(w, u)
	r2 := 0.0
	for _, v := range u {
		r2 += v * v
	}
	d, nu := float64(q.t.d), float64(propNu)
	a, _ := math.Lgamma((nu + d) / 2)
	b, _ := math.Lgamma(nu / 2)
	return a - b - d/2*math.Log(nu*math.Pi) - q.t.logDet - (nu+d)/2*math.Log1p(r2/nu)
}

// adapt fits the Student-t component in up to propRounds pilot runs of
// nPilot = clamp(n/10, 4096, 100000) samples each (population Monte Carlo
// style): each round estimates the posterior mean and covariance with the
// current proposal and refits; it stops once the pilot's weight ESS exceeds
// half its samples. A pilot covariance that is not positive definite keeps
// the current proposal.
func adapt(ctx context.Context, p Problem, q *proposal, s Settings, res *Result) (*proposal, error) {
	nPilot := min(max(s.Samples/10, 4096), 100_000)
	for round := 0; round < propRounds; round++ {
		pilot := &Result{}
		err := isEstimate(ctx, p, q, nPilot, s.Seed^splitmix64(0xada97+uint64(round)), s.Workers, pilot, nil)
		res.Evaluations += pilot.Evaluations
		if err != nil {
			return nil, err
		}
		if pilot.WeightESS >= 0.5*float64(nPilot) {
			break
		}
		cov := mat.NewSymDense(q.prior.d, nil)
		cov.ScaleSym(propScale*propScale, pilot.Cov)
		tf, err := newFrame(pilot.Mean, cov)
		if err != nil {
			break
		}
		q = &proposal{prior: q.prior, t: tf}
	}
	return q, nil
}
