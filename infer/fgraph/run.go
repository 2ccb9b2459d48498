package fgraph

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fg-infer/fg/infer"
)

// Family is the approximating family of a run: infer's Family (the
// family option of an infer line).
type Family = infer.Family

const (
	// Full treats the Gaussian part of the graph as one joint Gaussian:
	// linear-Gaussian graphs are solved exactly and likelihood factors are
	// EP sites on projections of the joint, the family of the GP and
	// linear block engines. On a forest this is the forward–backward
	// schedule: removing a factor leaves its variables in separate
	// subtrees, so its cavity under the joint is the product of their
	// marginals and joint EP's fixed point is the factorised one, found in
	// O(T). Otherwise, and for relaxed KL, the dense joint with infer/ep
	// (runJoint). The default.
	Full = infer.FamilyFull
	// Factorized keeps one Gaussian belief per variable and passes messages
	// on the factor graph (Gaussian BP and EP with a factorised family,
	// as Infer.NET and RxInfer do).
	Factorized = infer.FamilyFactorized
)

// Settings are infer.Settings plus the family.
//
// Defaults: Divergence nil = KL; Damping 0 = 1; Tol 0 = infer.DefaultMomentTol; MaxIter 0 =
// 200; Schedule Sequential (Parallel also runs; Residual under Factorized,
// on loopy graphs — a forest always runs forward–backward). Factorized supports KL and
// Alpha, and RelaxedKL on graphs with gates (relaxed.go); otherwise
// RelaxedKL needs Full (its relaxation acts on one projection of a joint
// posterior).
type Settings struct {
	infer.Settings
	Family Family
	// Cov keeps the joint posterior in the Result so that Result.Project
	// can answer covariances between variables (predictions through a GP
	// block and a latent bias). Under Full it runs the dense joint even on a
	// forest (at most MaxJoint variables); under Factorized Project reads
	// the product of the beliefs. Off, a run keeps no O(n²) state.
	Cov bool
	// VarGrad asks a run on the forward–backward schedule (a forest under
	// family = full or factorized, kl, no gates, no blocks) for
	// Result.VarGrad and the sites' cavities (vargrad.go).
	VarGrad bool

	// dense forces family = full onto the dense joint on a forest (tests).
	dense bool
}

// Result is the outcome of a run: the posterior marginal of every variable.
type Result struct {
	Status  infer.Status
	Message string // reason for a status other than Converged or Done
	infer.Stats
	Mean, Var []float64
	// FMean and FVar are the posterior marginals of each site's projection
	// f = aᵀx + c, in the order the sites were added (under Factorized the
	// beliefs' product: c + Σ a_k m_k and Σ a_k² v_k).
	FMean, FVar []float64
	// LogZ approximates log p(y): the Bethe / EP energy of the messages
	// (logz.go), exact for linear-Gaussian forests, power EP's evidence
	// under alpha; on the dense joint the Gaussian factors' normaliser plus
	// infer/ep's log Z. HasLogZ is false for relaxed KL, for runs that did
	// not converge and when an integral diverges (improper messages).
	LogZ    float64
	HasLogZ bool
	// Exact is true when the answer is exact (a linear-Gaussian graph).
	Exact bool
	// Trace holds the undamped residual of each sweep: the largest change of
	// a belief's mean or standard deviation, in units of the new standard
	// deviation, divided by the damping.
	Trace []float64
	// Prob are the marginals p(z_d = k) of the discrete variables (graphs
	// with gates), in the order they were added.
	Prob [][]float64
	// B are the relaxation weights of the sites (relaxed KL under Full), in
	// the order the sites were added; on a gated graph under Factorized,
	// those of the sites followed by those of the gates, each in the order
	// added (0 for a Gaussian site); nil otherwise.
	B []float64
	// VarGrad is ∂ log Z/∂σ²_k for each linear-Gaussian factor k, in the
	// order they were added, when Settings.VarGrad asked for it and the
	// run converged with an evidence on a forest's messages (vargrad.go);
	// nil otherwise.
	VarGrad []float64
	// AffGrad is, with VarGrad, the gradient of log Z in the mean of each
	// linear-Gaussian factor N(y_k; a_kᵀx + c_k, σ²_k), in the order they
	// were added: ∂ log Z/∂a_kj for its coefficients in the order of its
	// variables, then ∂ log Z/∂c_k (vargrad.go, affGrads).
	AffGrad []float64
	// CavMean and CavVar are the cavity of each site's projection
	// f = aᵀx + c (the product of its incoming messages), in the order the
	// sites were added, with VarGrad: a site parameter θ enters the
	// gradient as ∂ log Ẑ(y; CavMean, CavVar)/∂θ.
	CavMean, CavVar []float64

	// post is the joint posterior Project reads (Settings.Cov), nil otherwise.
	post posterior
}

// Run solves g. Invalid graphs and settings return an error; numerical
// trouble is reported in Status and Stats.Skipped. When ctx is canceled Run
// returns the partial result with Status Canceled and ctx.Err().
func Run(ctx context.Context, g *Graph, s Settings) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("fgraph: internal error: %v", r)
		}
	}()
	start := time.Now()
	if err := g.Err(); err != nil {
		return nil, err
	}
	if g.NumFactors() == 0 && len(g.blocks) == 0 {
		return nil, fmt.Errorf("fgraph: graph has no factors")
	}
	s.Settings = s.Settings.WithDefaults(infer.MethodEP)
	if s.Damping == 0 {
		s.Damping = 1
	}
	if err := infer.CheckDamping(s.Damping); err != nil {
		return nil, fmt.Errorf("fgraph: %w", err)
	}
	if !(s.Tol > 0) || s.MaxIter < 0 {
		return nil, fmt.Errorf("fgraph: tol %g, max_iter %d: want tol > 0, max_iter > 0", s.Tol, s.MaxIter)
	}
	if !slices.Contains(schedules(s.Family), s.Schedule) {
		return nil, fmt.Errorf("fgraph: schedule %v not supported under family = %v (sequential, parallel; residual under factorized)", s.Schedule, s.Family)
	}
	ad := newAdjacency(g)
	if v := unconstrained(g, ad); v >= 0 {
		return nil, fmt.Errorf("fgraph: variable %d has no linear-Gaussian factor (every variable needs a prior or a conditional)", v)
	}
	if err := gatedSettings(g, s); err != nil {
		return nil, err
	}
	if len(g.blocks) > 0 && s.Family == Factorized {
		return nil, fmt.Errorf("fgraph: a Gaussian block over several variables (gp, mvnormal) needs family = full")
	}
	if s.Family == Full && (s.dense || s.Cov || len(g.blocks) > 0 || !isForest(g, ad) || relaxed(s.Divergence)) {
		res, err = runJoint(ctx, g, ad, s)
	} else {
		res, err = runMessages(ctx, g, ad, s)
		if res != nil && s.Cov && res.Status.HasNumbers() {
			res.post = beliefs{mean: res.Mean, vr: res.Var}
		}
	}
	if res != nil {
		res.Runtime = time.Since(start)
	}
	return res, err
}

// unconstrained returns a variable that no linear-Gaussian factor touches
// (its marginal would rest on likelihoods alone and may be improper), or −1.
func unconstrained(g *Graph, ad *adjacency) int {
	inBlock := make([]bool, g.n)
	for _, b := range g.blocks {
		for _, v := range b.vars {
			inBlock[v] = true
		}
	}
	for v := 0; v < g.n; v++ {
		ok := inBlock[v]
		for _, e := range ad.vedge[ad.vstart[v]:ad.vstart[v+1]] {
			if g.gaussian(int(ad.efactor[e])) {
				ok = true
				break
			}
		}
		if !ok {
			return v
		}
	}
	return -1
}

func relaxed(d infer.Divergence) bool {
	_, ok := d.(infer.RelaxedKL)
	return ok
}

func hasSites(g *Graph) bool { return len(g.liks) > 0 }

// power returns the EP power u of a divergence under Factorized.
func power(d infer.Divergence) (float64, error) {
	switch d := d.(type) {
	case nil, infer.KL:
		return 1, nil
	case infer.Alpha:
		if !(d.A > 0) || math.IsInf(d.A, 1) {
			return 0, fmt.Errorf("fgraph: alpha(%g), want 0 < a < ∞", d.A)
		}
		return d.A, nil
	case infer.RelaxedKL:
		return 0, fmt.Errorf("fgraph: %v needs family = full", d)
	}
	return 0, fmt.Errorf("fgraph: divergence %v not supported (kl, alpha, relaxed_kl under family = full)", d)
}

// schedules are the schedules of a run under family f (the method
// registry's lists, which compile checks an infer line against).
func schedules(f Family) []infer.Schedule {
	if f == Factorized {
		return infer.GraphFactorizedSchedules
	}
	return infer.GraphFullSchedules
}
