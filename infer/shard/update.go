package shard

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// Update is the outcome of one shard's local step.
type Update struct {
	// Site is the shard's new (damped) site; on a skipped update it is the
	// old site unchanged.
	Site families.GaussianDense
	// Proposal is the undamped proposal g*_k (zero value when skipped).
	Proposal families.GaussianDense
	// Cavity is the cavity the local EP ran against (zero value when the
	// cavity was improper).
	Cavity families.GaussianDense
	// LogZ is the local EP's log Z_EP of ∫ c̄_k p(y_k | w) dw (HasLogZ false
	// when the local divergence defines none).
	LogZ    float64
	HasLogZ bool
	// SkipReason says why the shard kept its old site ("" when updated);
	// Stats.Skipped counts the local EP's skipped site updates.
	SkipReason string
	infer.Stats
}

// LocalUpdate is one shard's step of the sharded EP: the cavity
// global − old, local EP on the shard's sites against it, and the damped
// replacement (1 − δ)·old + δ·g*. It is a pure function of its arguments,
// so running it twice for the same iteration (a retry) gives the same site.
// A local EP that does not converge, or an improper cavity, leaves the old
// site in place and says why in Update.SkipReason. Errors are reserved for
// invalid input and cancellation.
func LocalUpdate(ctx context.Context, global, old families.GaussianDense, sites []ep.Site, local ep.Settings, delta float64) (*Update, error) {
	u := &Update{Site: old.Clone()}
	cav := global.Div(old)
	mean, cov, ok := cav.Moments()
	if !ok {
		u.SkipReason = "cavity is not positive definite"
		return u, nil
	}
	u.Cavity = cav
	res, err := ep.Run(ctx, &ep.Problem{Mean: mean, Cov: cov, Sites: sites}, local)
	if err != nil {
		return nil, err
	}
	u.Stats = res.Stats
	if res.Status != infer.Converged {
		u.SkipReason = fmt.Sprintf("local EP %v: %s", res.Status, res.Message)
		return u, nil
	}
	u.Proposal = siteSum(sites, res.Sites, global.Dim())
	u.LogZ, u.HasLogZ = res.LogZ, res.HasLogZ
	u.Site = old.Damp(u.Proposal, delta)
	return u, nil
}

// siteSum returns Σ_i τ̃_i a_i a_iᵀ and Σ_i ν̃_i a_i: the product of the local
// site messages as a Gaussian in w.
func siteSum(sites []ep.Site, params []families.Gaussian, d int) families.GaussianDense {
	g := families.FlatGaussianDense(d)
	prec := mat.NewDense(d, d, nil)
	for i, s := range sites {
		sp := params[i]
		if s.Proj == nil {
			prec.Set(s.Index, s.Index, prec.At(s.Index, s.Index)+sp.Prec)
			g.Shift[s.Index] += sp.Shift
			continue
		}
		floats.AddScaled(g.Shift, sp.Shift, s.Proj)
		rankOne(prec, sp.Prec, s.Proj)
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			g.Prec.SetSym(i, j, prec.At(i, j))
		}
	}
	return g
}

// rankOne adds t·a aᵀ to the upper triangle of m.
func rankOne(m *mat.Dense, t float64, a []float64) {
	d := len(a)
	raw := m.RawMatrix()
	for i := 0; i < d; i++ {
		if a[i] == 0 {
			continue
		}
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+d]
		floats.AddScaled(row, t*a[i], a[i:])
	}
}
