package run

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// fitcBlock runs FITC EP (infer/ep's RunFITC) on a block whose gp prior
// has inducing inputs: K_uu = k(Z, Z), K_fu = k(X, Z) and k(x_i, x_i) are
// all it evaluates (O(n m) memory; compile bounds n·m).
func (j *job) fitcBlock(b *graph.Block) (*blockOut, error) {
	p, err := fitcProblem(b)
	if err != nil {
		return nil, err
	}
	for _, s := range b.Sites {
		lik, err := j.epLikelihood(s)
		if err != nil {
			return nil, err
		}
		p.Sites = append(p.Sites, ep.Site{Lik: lik, Y: s.Y, Index: s.Index})
	}
	res, err := ep.RunFITC(j.ctx, p, ep.Settings{Settings: j.st, NonNegativeSites: j.spec.NonNegativeSites})
	if res == nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ,
		hasLogZ: res.HasLogZ, trace: res.Trace}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var}
	o.relax = j.relaxations(b.Sites, res.B)
	if res.Mean != nil {
		if o.predictions, err = j.fitcPredictions(b, res); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// fitcProblem evaluates the kernel at the inducing inputs; the jitter is
// the model's or GPML's 1e-6·trace(K_uu)/m.
func fitcProblem(b *graph.Block) (*ep.FITCProblem, error) {
	k, err := b.Prior.Kernel.Kernel()
	if err != nil {
		return nil, err
	}
	return fitcInputs(k, b.Prior.X, b.Prior.FITC), nil
}

// fitcInputs evaluates kernel k at the inputs X and the inducing inputs of f.
func fitcInputs(k kernel.Kernel, X *mat.Dense, f *graph.FITC) *ep.FITCProblem {
	n, _ := X.Dims()
	p := &ep.FITCProblem{Kuu: k.Matrix(f.Z), Kfu: k.Cross(X, f.Z), Kdiag: make([]float64, n), Jitter: f.Jitter}
	for i := range p.Kdiag {
		x := X.RawRowView(i)
		p.Kdiag[i] = k.Eval(x, x)
	}
	if !f.JitterSet {
		p.Jitter = ep.GPMLJitter(p.Kuu)
	}
	return p
}

// fitcPredictions evaluates the block's predict statements with GPML's
// FITC predictive distribution.
func (j *job) fitcPredictions(b *graph.Block, res *ep.FITCResult) ([]infer.Prediction, error) {
	k, err := b.Prior.Kernel.Kernel()
	if err != nil {
		return nil, err
	}
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		t, _ := p.Xnew.Dims()
		kss := make([]float64, t)
		for i := range kss {
			x := p.Xnew.RawRowView(i)
			kss[i] = k.Eval(x, x)
		}
		mean, vr, err := res.Predict(k.Cross(p.Xnew, b.Prior.FITC.Z), kss)
		if err != nil {
			return nil, fmt.Errorf("predict %s: %w", p.Name, err)
		}
		pr := infer.Prediction{Name: p.Name, Shape: []int{t}, Mean: mean, Var: vr}
		if lik := predictLik(p); lik != nil {
			if pr.Prob, err = ep.Prob(lik, mean, vr); err != nil {
				return nil, fmt.Errorf("predict %s: %w", p.Name, err)
			}
		}
		out = append(out, pr)
	}
	return out, nil
}
