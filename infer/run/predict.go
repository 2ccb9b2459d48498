package run

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/infer/tep"
)

// predictsOf returns the predict statements on block b.
// On a factor-graph model these are the predicts of its joint block (the
// gold standards' block, jointBlock): every predict of the model.
func (j *job) predictsOf(b *graph.Block) []*compile.PredictSpec {
	var out []*compile.PredictSpec
	for _, p := range j.m.Predicts {
		if p.FG != nil && b.Latent < 0 && j.m.FactorGraph != nil {
			out = append(out, p)
			continue
		}
		if p.Block >= 0 && p.Block < len(j.m.Blocks()) && j.m.Blocks()[p.Block] == b {
			out = append(out, p)
		}
	}
	return out
}

// kernelInputs returns, for a GP/TP prior, the cross covariance k(X*, X)
// and the prior variances k(x*, x*) of the new inputs.
func kernelInputs(pr *graph.Prior, xnew *mat.Dense) (*mat.Dense, []float64) {
	k := &pr.Kernel
	ks := k.Cross(xnew, pr.X)
	t, _ := xnew.Dims()
	kss := make([]float64, t)
	for i := range kss {
		x := xnew.RawRowView(i)
		kss[i] = k.Eval(x, x, true)
	}
	return ks, kss
}

func hasKernel(b *graph.Block) bool {
	return b.Prior.Kind.Process()
}

// epPredictions evaluates the block's predict statements on an EP result.
func (j *job) epPredictions(b *graph.Block, res *ep.Result) ([]infer.Prediction, error) {
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		var mean, vr []float64
		var err error
		if hasKernel(b) {
			ks, kss := kernelInputs(&b.Prior, p.Xnew)
			mean, vr, err = res.Predict(ks, kss, nil)
		} else {
			mean, vr, err = res.PredictLinear(p.Xnew)
		}
		if err != nil {
			return nil, fmt.Errorf("predict %s: %w", p.Name, err)
		}
		pr := infer.Prediction{Name: p.Name, Shape: []int{len(mean)}, Mean: mean, Var: vr}
		if err := observe(&pr, p, mean, vr); err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

// observe sets pr's expected observation (counts) and p(y* = +1)
// (classifiers) from the Gaussian predictive N(mean, vr) of the
// likelihood's argument.
func observe(pr *infer.Prediction, p *compile.PredictSpec, mean, vr []float64) error {
	if mo, ok := p.Lik.(factor.MeanObs); ok {
		pr.MeanY = make([]float64, len(mean))
		for i := range mean {
			pr.MeanY[i] = mo.MeanObs(mean[i], vr[i])
		}
	}
	if lik := predictLik(p); lik != nil {
		var err error
		if pr.Prob, err = ep.Prob(lik, mean, vr); err != nil {
			return fmt.Errorf("predict %s: %w", p.Name, err)
		}
	}
	return nil
}

// predictLik is the likelihood that turns a predictive latent into
// p(y = +1): the block likelihood's own ClassProb rule when it has closed
// forms (probit, step), else its LogDensity under 64-point Gauss–Hermite
// (logistic); nil when the likelihood is not a classifier.
func predictLik(p *compile.PredictSpec) ep.Likelihood {
	cp, ok := p.Lik.(factor.ClassProb)
	if !ok || !classifier(cp) {
		return nil
	}
	if lik, ok := p.Lik.(ep.Likelihood); ok {
		return lik
	}
	lik, _ := numericLik(p.Lik, ffep.Scheme{Kind: ffep.GH, N: 64})
	return lik
}

// tepPredictions evaluates the block's predict statements on a t-EP result.
func (j *job) tepPredictions(b *graph.Block, res *tep.Result) ([]infer.Prediction, error) {
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		lik, hasProb := p.Lik.(factor.Escort) // nil: no Prob
		t, _ := p.Xnew.Dims()
		pr := infer.Prediction{Name: p.Name, Shape: []int{t}, Mean: make([]float64, t), Var: make([]float64, t)}
		if hasProb {
			pr.Prob = make([]float64, t)
		}
		var ks *mat.Dense
		var kss []float64
		if hasKernel(b) {
			ks, kss = kernelInputs(&b.Prior, p.Xnew)
		}
		for i := 0; i < t; i++ {
			var q tep.Prediction
			var err error
			if ks != nil {
				q, err = res.PredictTP(ks.RawRowView(i), kss[i], 0, lik)
			} else {
				q, err = res.PredictProj(p.Xnew.RawRowView(i), lik)
			}
			if err != nil {
				return nil, fmt.Errorf("predict %s: %w", p.Name, err)
			}
			pr.Mean[i], pr.Var[i] = q.Mean, q.Var
			if hasProb {
				pr.Prob[i] = q.Prob
			}
		}
		out = append(out, pr)
	}
	return out, nil
}
