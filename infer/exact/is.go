package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// isChunk is the number of samples between context checks.
const isChunk = 4096

// runIS is self-normalised importance sampling with the prior as proposal:
// w_s = m0 + L0 ε_s, ε_s ~ N(0, I), weights W_s = exp(ℓ(w_s)). With S = Σ W_s,
//
//	Ẑ = S/n,  μ̂ = Σ W_s w_s / S,  Ĉ = Σ W_s (w_s − μ̂)(w_s − μ̂)ᵀ / S,
//
// and delta-method standard errors
//
//	se(log Ẑ) = sd(W)/(√n · mean(W)),  se(μ̂_i) = √(Σ W_s² (w_si − μ̂_i)²) / S,
//	se(Ĉ_ii) = √(Σ W_s² ((w_si − μ̂_i)² − Ĉ_ii)²) / S.
//
// Samples and log weights are kept in memory (n·(d+1) floats).
func runIS(ctx context.Context, p Problem, prior *frame, s Settings) (*Result, error) {
	d, n := prior.d, s.Samples
	res := &Result{Method: "is", Status: infer.Done}
	rng := rand.New(rand.NewPCG(s.Seed, 0x853c49e6748fea9b))
	ws := make([]float64, n*d)
	lw := make([]float64, n)
	eps := make([]float64, d)
	maxLW := math.Inf(-1)
	for i := 0; i < n; i++ {
		if i%isChunk == 0 {
			if err := ctx.Err(); err != nil {
				return failQuad(res, i, err)
			}
		}
		for j := range eps {
			eps[j] = rng.NormFloat64()
		}
		w := ws[i*d : (i+1)*d]
		prior.toW(eps, w)
		v := p.LogLik(w)
		if err := checkLogLik(v, w); err != nil {
			return failQuad(res, i+1, err)
		}
		lw[i] = v
		maxLW = math.Max(maxLW, v)
	}
	res.Evaluations, res.Updates = n, n
	if math.IsInf(maxLW, -1) {
		return failQuad(res, 0, fmt.Errorf("exact: all %d importance weights are zero", n))
	}
	isSummarise(res, ws, lw, maxLW, d)
	return res, nil
}

// isSummarise computes the estimates and standard errors from samples ws
// (row-major n×d) and log weights lw with maximum maxLW.
func isSummarise(res *Result, ws, lw []float64, maxLW float64, d int) {
	n := len(lw)
	W := make([]float64, n)
	var sw, sw2 float64
	for i, v := range lw {
		W[i] = math.Exp(v - maxLW)
		sw += W[i]
		sw2 += W[i] * W[i]
	}
	meanW := sw / float64(n)
	varW := sw2/float64(n) - meanW*meanW
	res.LogZ = maxLW + math.Log(meanW)
	res.LogZErr = math.Sqrt(math.Max(varW, 0)/float64(n)) / meanW
	res.WeightESS = sw * sw / sw2
	res.Mean = make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			res.Mean[j] += W[i] * ws[i*d+j]
		}
	}
	for j := range res.Mean {
		res.Mean[j] /= sw
	}
	res.Cov = mat.NewSymDense(d, nil)
	for i := 0; i < n; i++ {
		for a := 0; a < d; a++ {
			da := ws[i*d+a] - res.Mean[a]
			for b := a; b < d; b++ {
				res.Cov.SetSym(a, b, res.Cov.At(a, b)+W[i]*da*(ws[i*d+b]-res.Mean[b]))
			}
		}
	}
	res.Cov.ScaleSym(1/sw, res.Cov)
	isErrors(res, ws, W, sw, d)
}

// isErrors fills Var, MeanErr, VarErr and ErrEstimate.
func isErrors(res *Result, ws, W []float64, sw float64, d int) {
	res.Var = make([]float64, d)
	res.MeanErr = make([]float64, d)
	res.VarErr = make([]float64, d)
	for j := 0; j < d; j++ {
		res.Var[j] = res.Cov.At(j, j)
	}
	for i, wi := range W {
		for j := 0; j < d; j++ {
			dj := ws[i*d+j] - res.Mean[j]
			res.MeanErr[j] += wi * wi * dj * dj
			q := dj*dj - res.Var[j]
			res.VarErr[j] += wi * wi * q * q
		}
	}
	res.ErrEstimate = res.LogZErr
	for j := 0; j < d; j++ {
		res.MeanErr[j] = math.Sqrt(res.MeanErr[j]) / sw
		res.VarErr[j] = math.Sqrt(res.VarErr[j]) / sw
		res.ErrEstimate = math.Max(res.ErrEstimate, res.MeanErr[j]/math.Sqrt(res.Var[j]))
		res.ErrEstimate = math.Max(res.ErrEstimate, res.VarErr[j]/res.Var[j])
	}
	if res.WeightESS < 100 {
		res.Message = fmt.Sprintf("importance weights degenerate: ESS %.1f of %d samples; standard errors are unreliable", res.WeightESS, len(W))
	}
}
