package main

import (
	"context"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/tep"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// hyper is the fixed rule for the kernel of futami eq. 44,
//
//	k(x, x') = θ0 exp(−Σ_d θ1 (x_d − x'_d)²) + θ2 + θ3 δ(x, x'),
//
// on z-scored inputs: θ1 = 1/(2 ℓ²) with ℓ = LenScale·√D (the typical
// distance between z-scored points is √(2D)), θ0 = SigVar, θ2 = Bias,
// θ3 = Noise.
type hyper struct {
	LenScale, SigVar, Bias, Noise float64
}

func (h hyper) kernel(d int) kernel.Kernel {
	ells := make([]float64, d)
	for i := range ells {
		ells[i] = h.LenScale * math.Sqrt(float64(d))
	}
	return kernel.Sum{kernel.ARD{Lengthscales: ells, Var: h.SigVar}, kernel.Bias{Var: h.Bias}, kernel.White{Var: h.Noise}}
}

// outcome is one model fitted on one (possibly corrupted) training set.
type outcome struct {
	Err      float64 // test error rate
	LogZ     float64
	HasLogZ  bool
	Status   infer.Status
	Sweeps   int
	Skipped  int
	Seconds  float64
	MeanProb float64 // mean predicted p(y = true label)
}

// gram returns the training Gram matrix, the test×train cross matrix and
// the test prior variances (θ0 + θ2 + θ3).
func gram(k kernel.Kernel, ds *dataset) (*mat.SymDense, *mat.Dense, []float64) {
	K := k.Matrix(ds.Xtr)
	Ks := k.Cross(ds.Xte, ds.Xtr)
	nt, _ := ds.Xte.Dims()
	kss := make([]float64, nt)
	for i := range kss {
		kss[i] = k.Eval(ds.Xte.RawRowView(i), ds.Xte.RawRowView(i))
	}
	return K, Ks, kss
}

// runGPC is Gaussian process classification with the step likelihood
// ε + (1−2ε)Θ(y f) by Gaussian EP (infer/ep, sequential).
func runGPC(ctx context.Context, ds *dataset, y []float64, K *mat.SymDense, Ks *mat.Dense, kss []float64, eps float64) outcome {
	start := time.Now()
	p := &ep.Problem{Cov: K}
	for i, yi := range y {
		p.Sites = append(p.Sites, ep.Site{Lik: ep.Step{Eps: eps}, Y: yi, Index: i})
	}
	r, err := ep.Run(ctx, p, ep.Settings{Settings: infer.Settings{Tol: 1e-6, MaxIter: 300}})
	if err != nil || r.Mean == nil {
		return outcome{Status: infer.Failed, Err: math.NaN()}
	}
	mean, vr, err := r.Predict(Ks, kss, nil)
	if err != nil {
		return outcome{Status: infer.Failed, Err: math.NaN()}
	}
	probs, _ := ep.Prob(ep.Step{Eps: eps}, mean, vr)
	o := outcome{LogZ: r.LogZ, HasLogZ: r.HasLogZ, Status: r.Status, Sweeps: r.Iterations, Skipped: r.Skipped}
	o.Err, o.MeanProb = score(probs, ds.Yte)
	o.Seconds = time.Since(start).Seconds()
	return o
}

// runSTC is Student-t process classification f ~ TP(ν, 0, K) with the same
// likelihood by t-EP (infer/tep, sequential, damped).
func runSTC(ctx context.Context, ds *dataset, y []float64, K *mat.SymDense, Ks *mat.Dense, kss []float64, eps, nu, damping, tol float64) outcome {
	start := time.Now()
	p := &tep.Problem{Nu: nu, Scale: K}
	lik := factor.Step{Eps: eps}
	for i, yi := range y {
		p.Sites = append(p.Sites, tep.Site{Lik: lik, Y: yi, Index: i})
	}
	r, err := tep.Run(ctx, p, infer.Settings{Tol: tol, MaxIter: 200, Damping: damping}, nil)
	if err != nil || r.Mean == nil {
		st := infer.Failed
		if r != nil {
			st = r.Status
		}
		return outcome{Status: st, Err: math.NaN()}
	}
	nt := len(ds.Yte)
	probs := make([]float64, nt)
	for i := 0; i < nt; i++ {
		pr, err := r.PredictTP(Ks.RawRowView(i), kss[i], 0, lik)
		if err != nil {
			return outcome{Status: infer.Failed, Err: math.NaN()}
		}
		probs[i] = pr.Prob
	}
	o := outcome{LogZ: r.LogZ, HasLogZ: r.HasLogZ, Status: r.Status, Sweeps: r.Iterations, Skipped: r.Skipped}
	o.Err, o.MeanProb = score(probs, ds.Yte)
	o.Seconds = time.Since(start).Seconds()
	return o
}

// score returns the error rate of the rule p(y = +1) > ½ and the mean
// probability given to the true label.
func score(probs, y []float64) (errRate, meanProb float64) {
	var wrong, mp float64
	for i, p := range probs {
		if (p > 0.5) != (y[i] > 0) {
			wrong++
		}
		if y[i] > 0 {
			mp += p
		} else {
			mp += 1 - p
		}
	}
	n := float64(len(y))
	return wrong / n, mp / n
}
