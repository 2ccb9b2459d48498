package fgraph

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/mcmc"
	"github.com/fg-infer/fg/internal/mathx"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TrueSkill (Herbrich, Minka & Graepel 2007) with performance variables:
// skill_i ~ N(0, 1), perf_{g,0} ~ N(skill_winner, β²), perf_{g,1} ~
// N(skill_loser, β²), step(perf_{g,0} − perf_{g,1}, 0) observed +1.
var trueskillGames = [][2]int{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {3, 1}, {0, 1}, {2, 3}, {3, 0}}

const (
	tsPlayers = 4
	tsBeta2   = 0.5
)

func trueskillGraph() *Graph {
	G := len(trueskillGames)
	g := NewGraph(tsPlayers + 2*G)
	for i := 0; i < tsPlayers; i++ {
		g.AddGaussian([]int{i}, []float64{1}, 0, 0, 1)
	}
	for k, gm := range trueskillGames {
		pw, pl := tsPlayers+2*k, tsPlayers+2*k+1
		g.AddGaussian([]int{pw, gm[0]}, []float64{1, -1}, 0, 0, tsBeta2)
		g.AddGaussian([]int{pl, gm[1]}, []float64{1, -1}, 0, 0, tsBeta2)
		g.AddSite(ep.Step{}, 1, []int{pw, pl}, []float64{1, -1}, 0)
	}
	return g
}

// trueskillIntegrated is EP on the skills alone with the performances
// integrated by hand: p(win | s) = Φ((s_w − s_l)/√(2β²)), a probit site on
// the scaled difference (infer/ep, an independent engine path).
func trueskillIntegrated(t *testing.T) *ep.Result {
	cov := mat.NewSymDense(tsPlayers, nil)
	for i := 0; i < tsPlayers; i++ {
		cov.SetSym(i, i, 1)
	}
	p := &ep.Problem{Cov: cov}
	s := 1 / math.Sqrt(2*tsBeta2)
	for _, gm := range trueskillGames {
		a := make([]float64, tsPlayers)
		a[gm[0]], a[gm[1]] = s, -s
		p.Sites = append(p.Sites, ep.Site{Lik: ep.Probit{}, Y: 1, Proj: a})
	}
	res, err := ep.Run(context.Background(), p, ep.Settings{Settings: infer.Settings{Tol: 1e-12, MaxIter: 1000}})
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("reference EP: %v %v", err, res.Status)
	}
	return res
}

func TestTrueSkillFull(t *testing.T) {
	ref := trueskillIntegrated(t)
	res, err := Run(context.Background(), trueskillGraph(), Settings{Settings: infer.Settings{Tol: 1e-12, MaxIter: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Converged {
		t.Fatalf("status %v: %s", res.Status, res.Message)
	}
	for i := 0; i < tsPlayers; i++ {
		if !scalar.EqualWithinAbs(res.Mean[i], ref.Mean[i], 1e-6) || !scalar.EqualWithinAbs(res.Var[i], ref.Var[i], 1e-6) {
			t.Errorf("skill %d: %.9g ± %.9g, integrated EP %.9g ± %.9g", i, res.Mean[i], res.Var[i], ref.Mean[i], ref.Var[i])
		}
	}
	if !res.HasLogZ || !scalar.EqualWithinAbs(res.LogZ, ref.LogZ, 1e-6) {
		t.Errorf("log Z %.9g (%v), integrated EP %.9g", res.LogZ, res.HasLogZ, ref.LogZ)
	}
}

// Under family = factorized the graph is loopy (players meet more than
// once and in cycles): the sequential and parallel schedules converge; their
// distance to joint EP and to elliptical slice sampling on the skills
// (performances integrated out) is logged (the factorised family is a
// different approximation, with no accuracy claim).
func TestTrueSkillFactorized(t *testing.T) {
	ref := trueskillIntegrated(t)
	gold := trueskillMCMC(t)
	var first *Result
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel, infer.Residual} {
		res, err := Run(context.Background(), trueskillGraph(), Settings{Family: Factorized,
			Settings: infer.Settings{Schedule: sched, Tol: 1e-10, MaxIter: 1000, Damping: 0.7}})
		if err != nil {
			t.Fatal(err)
		}
		// Converged implies no skipped update in the last sweep; a parallel
		// sweep skips sites while their cavities are still flat (the first
		// sweeps, before the skills' messages reach the performances).
		if res.Status != infer.Converged || (sched == infer.Sequential && res.Skipped != 0) {
			t.Fatalf("%v: status %v (%s), %d skipped", sched, res.Status, res.Message, res.Skipped)
		}
		// Every schedule reaches the same fixed point.
		if first == nil {
			first = res
		}
		for i := range res.Mean {
			if !scalar.EqualWithinAbs(res.Mean[i], first.Mean[i], 1e-8) || !scalar.EqualWithinAbs(res.Var[i], first.Var[i], 1e-8) {
				t.Errorf("%v: x[%d] = %.10g ± %.10g, sequential %.10g ± %.10g", sched, i, res.Mean[i], res.Var[i], first.Mean[i], first.Var[i])
			}
		}
		var dm, dv float64
		for i := 0; i < tsPlayers; i++ {
			dm = math.Max(dm, math.Abs(res.Mean[i]-ref.Mean[i]))
			dv = math.Max(dv, math.Abs(res.Var[i]-ref.Var[i]))
		}
		t.Logf("%v: converged in %d sweeps (%d updates skipped); max |Δmean| %.3g, |Δvar| %.3g against joint EP; log Z %.6g vs %.6g", sched, res.Iterations, res.Skipped, dm, dv, res.LogZ, ref.LogZ)
		var gm, gv, fm, fv float64
		for i := 0; i < tsPlayers; i++ {
			gm = math.Max(gm, math.Abs(res.Mean[i]-gold.Mean[i]))
			gv = math.Max(gv, math.Abs(res.Var[i]-gold.Var[i]))
			fm = math.Max(fm, math.Abs(ref.Mean[i]-gold.Mean[i]))
			fv = math.Max(fv, math.Abs(ref.Var[i]-gold.Var[i]))
		}
		t.Logf("%v against mcmc: max |Δmean| %.3g, |Δvar| %.3g (joint EP: %.3g, %.3g; largest MCSE of a mean %.3g)", sched, gm, gv, fm, fv, slices.Max(gold.MeanSE))
	}
}

// trueskillMCMC samples the skills with the performances integrated out
// (probit on the scaled difference) by elliptical slice sampling.
func trueskillMCMC(t *testing.T) *mcmc.Result {
	cov := mat.NewSymDense(tsPlayers, nil)
	for i := 0; i < tsPlayers; i++ {
		cov.SetSym(i, i, 1)
	}
	s := 1 / math.Sqrt(2*tsBeta2)
	logLik := func(w []float64) float64 {
		l := 0.0
		for _, gm := range trueskillGames {
			l += mathx.LogPhi(s * (w[gm[0]] - w[gm[1]]))
		}
		return l
	}
	res, err := mcmc.RunESS(context.Background(), mcmc.Problem{Mean: make([]float64, tsPlayers), Cov: cov, LogLik: logLik},
		mcmc.Settings{Samples: 4000, Chains: 4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
