package run

import (
	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/mcmc"
)

// maxDisplayDraws bounds the MCMC draws a display grid averages over.
const maxDisplayDraws = 1000

// displaySeed fixes the exact draws of a display grid.
const displaySeed = 1

// exactDisplay answers a display grid (compile.PredictSpec.Display) from
// maxDisplayDraws draws of the exact posterior (exact.Result.Draws: cells of
// the final quadrature partition by mass, uniform within a cell) instead of
// one quadrature pass over every cell per grid point, which costs tens of
// seconds for a 61×61 boundary grid. It keeps the posterior's shape, which a
// Gaussian with the exact mean and covariance would not: under the step
// likelihood the boundary p = ½ lies where the median of aᵀw is 0, not its
// mean. The standard error on p(y* = +1) is at most ½/√1000 ≈ 0.016.
func exactDisplay(b *graph.Block, p *compile.PredictSpec, res *exact.Result) (infer.Prediction, error) {
	draws, err := res.Draws(maxDisplayDraws, displaySeed)
	if err != nil {
		return infer.Prediction{}, err
	}
	return drawsPrediction(b, p, draws)
}

// mcmcDisplay answers a display grid from at most maxDisplayDraws draws,
// evenly thinned over every chain: the same Monte Carlo predictive as
// mcmcPredictions, without the per-point error summaries (ESS, R-hat).
func mcmcDisplay(b *graph.Block, p *compile.PredictSpec, res *mcmc.Result) (infer.Prediction, error) {
	return drawsPrediction(b, p, thinDraws(res.Draws, maxDisplayDraws))
}

// drawsPrediction averages goldFuncs over posterior draws (by addTo, which
// computes each predictor's mean once per draw).
func drawsPrediction(b *graph.Block, p *compile.PredictSpec, draws [][]float64) (infer.Prediction, error) {
	ps, err := goldPredictors(b, p)
	if err != nil {
		return infer.Prediction{}, err
	}
	vals := make([]float64, len(goldFuncs(ps)))
	for _, w := range draws {
		k := 0
		for _, g := range ps {
			k += g.addTo(vals[k:], w)
		}
	}
	for i := range vals {
		vals[i] /= float64(len(draws))
	}
	return assemble(p.Name, ps, vals), nil
}

// thinDraws returns at most about limit draws (Draws[c][j][t] layout), every k-th of
// each chain.
func thinDraws(d [][][]float64, limit int) [][]float64 {
	total := 0
	for _, c := range d {
		if len(c) > 0 {
			total += len(c[0])
		}
	}
	step := max(1, (total+limit-1)/limit)
	var out [][]float64
	for _, c := range d {
		if len(c) == 0 {
			continue
		}
		for t := 0; t < len(c[0]); t += step {
			w := make([]float64, len(c))
			for j := range c {
				w[j] = c[j][t]
			}
			out = append(out, w)
		}
	}
	return out
}
