package run

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/mp"
)

// The engines of a model compiled to the typed factor graph
// (compile.Model.Net): ep — with kl, alpha(a) (power EP) or alpha(0)
// (variational message passing) — runs infer/mp (the engine netEP); exact and
// mcmc run the gold standards (net_gold.go: netExact, netMCMC).

// mpAlpha is infer/mp's α under divergence d: 1 for kl (EP), a for
// alpha(a) (power EP; 0 is variational message passing).
func mpAlpha(d infer.Divergence) (float64, error) {
	switch d := d.(type) {
	case infer.Alpha:
		return d.A, nil
	case infer.KL, nil:
		return 1, nil
	}
	return 0, fmt.Errorf("divergence %v does not run on this model; use kl, alpha(a) or alpha(0)", d)
}

// runMP is the runner of netEP: it runs infer/mp and maps its beliefs to the model's latents.
func (j *job) runMP() error {
	alpha, err := mpAlpha(j.st.Divergence)
	if err != nil {
		return err
	}
	opt := mp.Options{Alpha: alpha, Damping: j.st.Damping, FixedDamping: j.st.FixedDamping, Tol: j.st.Tol, MaxIter: j.st.MaxIter, Progress: j.st.Progress}
	res, err := mp.Run(j.ctx, j.m.Net, opt)
	if err != nil {
		return err
	}
	r := j.res
	r.Status, r.Message, r.Trace = res.Status, res.Message, res.Trace
	r.Iterations, r.Updates, r.Skipped, r.Adapted = res.Iterations, res.Updates, res.Skipped, res.Adapted
	if res.Beliefs == nil {
		return nil
	}
	r.LogEvidence, r.HasEvidence, r.ELBO = res.LogEvidence, true, res.ELBO
	r.Variables = netVariables(j.m.Graph, j.m.Net, func(v int, out *netElem) {
		nv, sp := j.m.Net.Vars[v], mp.Space(j.m.Net, v)
		if nv.Family == graph.Discrete {
			out.probs = sp.Params(res.Beliefs[v])
			return
		}
		out.mean, out.vr, out.nat = make([]float64, nv.Dim), make([]float64, nv.Dim), res.Beliefs[v]
		sp.Moments(res.Beliefs[v], out.mean, out.vr)
	})
	r.Predictions, err = netPredictions(j.m, func(v int) factor.EdgeMoments {
		var mean, vr [1]float64
		mp.Space(j.m.Net, v).Moments(res.Beliefs[v], mean[:], vr[:])
		return factor.EdgeMoments{Mean: mean[0], Var: vr[0], MeanInv: families.MeanInv(j.m.Net.Vars[v].Family, res.Beliefs[v])}
	})
	return err
}
