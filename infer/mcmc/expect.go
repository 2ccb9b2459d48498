package mcmc

import (
	"errors"
	"fmt"
	"math"
)

// Expect summarises g(w) over the kept draws of every chain (it needs
// Settings.KeepDraws): the posterior expectation E[g(w) | D] as Summary.Mean
// with its Monte Carlo standard error, effective sample size and split R-hat.
// With g(w) = Φ(x*ᵀw) it gives the predictive probability of a probit model.
func (r *Result) Expect(g func(w []float64) float64) (s Summary, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mcmc: Expect: panic: %v", p)
		}
	}()
	if len(r.Draws) == 0 {
		return Summary{}, errors.New("mcmc: Expect needs the draws (Settings.KeepDraws)")
	}
	d := len(r.Draws[0])
	chains := make([][]float64, len(r.Draws))
	w := make([]float64, d)
	for c, dr := range r.Draws {
		n := len(dr[0])
		chains[c] = make([]float64, n)
		for t := 0; t < n; t++ {
			for j := 0; j < d; j++ {
				w[j] = dr[j][t]
			}
			v := g(w)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Summary{}, fmt.Errorf("mcmc: Expect: g is %v at draw %d of chain %d", v, t, c)
			}
			chains[c][t] = v
		}
	}
	return Summarise(chains), nil
}
