package run

import (
	"fmt"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/mp"
)

// runNet runs an infer line on a model compiled to the typed factor graph
// (compile.Model.Net): ep — with kl, alpha(a) (power EP) or alpha(0)
// (variational message passing) — runs infer/mp.
func (j *job) runNet() error {
	switch j.spec.Method {
	case "ep":
		return j.runMP()
	}
	return fmt.Errorf("%s does not run on models with beta, gamma, inv_gamma or dirichlet latents or discrete chains; use ep (kl, alpha(a), or alpha(0) for VMP)", j.spec.Method)
}

// runMP runs infer/mp and maps its beliefs to the model's latents.
func (j *job) runMP() error {
	opt := mp.Options{Alpha: 1, Damping: j.st.Damping, Tol: j.st.Tol, MaxIter: j.st.MaxIter, Progress: j.st.Progress}
	switch d := j.st.Divergence.(type) {
	case infer.Alpha:
		opt.Alpha = d.A
	case infer.KL, nil:
	default:
		return fmt.Errorf("divergence %v does not run on this model; use kl, alpha(a) or alpha(0)", d)
	}
	res, err := mp.Run(j.ctx, j.m.Net, opt)
	if err != nil {
		return err
	}
	r := j.res
	r.Status, r.Message, r.Trace = res.Status, res.Message, res.Trace
	r.Iterations, r.Updates, r.Skipped = res.Iterations, res.Updates, res.Skipped
	if res.Beliefs == nil {
		return nil
	}
	r.LogEvidence, r.HasEvidence, r.ELBO = res.LogEvidence, true, res.ELBO
	r.Variables = netVariables(j.m.Graph, j.m.Net, res.Beliefs)
	return nil
}

// netVariables summarises the beliefs latent by latent: a discrete
// variable's state probabilities; a continuous one's mean, variance and
// marginal with its parameters (a Dirichlet row fills its K elements).
func netVariables(g *graph.Graph, net *graph.Net, beliefs [][]float64) []infer.Variable {
	byLatent := map[int][]int{}
	var order []int
	for v, nv := range net.Vars {
		if _, seen := byLatent[nv.Latent]; !seen {
			order = append(order, nv.Latent)
		}
		byLatent[nv.Latent] = append(byLatent[nv.Latent], v)
	}
	var out []infer.Variable
	for _, li := range order {
		l := &g.Latents[li]
		size := l.Size()
		iv := infer.Variable{Name: l.Name, Shape: l.Shape}
		vars := byLatent[li]
		fam := net.Vars[vars[0]].Family
		if fam == graph.Discrete {
			iv.Discrete, iv.States, iv.Probs = true, stateLabels(l), make([][]float64, size)
			for _, v := range vars {
				iv.Probs[net.Vars[v].Elem] = mp.Space(net, v).Params(beliefs[v])
			}
			out = append(out, iv)
			continue
		}
		if fam != graph.Gaussian {
			iv.Family = fam.String()
		}
		iv.Mean, iv.Var, iv.Dist = make([]float64, size), make([]float64, size), make([]string, size)
		for _, v := range vars {
			nv := net.Vars[v]
			sp := mp.Space(net, v)
			mean, variance := make([]float64, nv.Dim), make([]float64, nv.Dim)
			sp.Moments(beliefs[v], mean, variance)
			for k := range nv.Dim {
				i := nv.Elem*nv.Dim + k
				iv.Mean[i], iv.Var[i], iv.Dist[i] = mean[k], variance[k], sp.String(beliefs[v])
			}
		}
		out = append(out, iv)
	}
	return out
}
