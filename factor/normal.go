package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"

	"github.com/fg-infer/fg/stdlib"
)

var normalBuiltin = stdlib.Builtin{Name: "normal", Kind: stdlib.Distribution, Domains: realDomain, Prior: true, Observed: true,
	Params: []stdlib.Param{stdlib.Required("mean", stdlib.NumericT, "mean (scalar: the same for every element; or a vector); as a likelihood the latent projection a"),
		stdlib.RequiredVariance("var", stdlib.NumericT, "variance (scalar or per-element vector); or by name `sd =` a standard deviation, `precision =` a precision")},
	Doc: "iid Gaussian prior N(mean, var) over a real latent; as a likelihood y ~ normal(a, var): p(y|a) = N(y; a, var)"}

// NormalPrior is the iid Gaussian prior N(mean, var) over the elements of a
// real latent (compile evaluates mean and var per element).
type NormalPrior struct{}

func (NormalPrior) Name() string             { return "normal" }
func (NormalPrior) Role() Role               { return Prior }
func (NormalPrior) Builtin() *stdlib.Builtin { return &normalBuiltin }
func (NormalPrior) Family() graph.Family     { return graph.Gaussian }
func (NormalPrior) Process() bool            { return false }
func (NormalPrior) Independent() bool        { return true }

// Normal is the regression likelihood p(y | f) = N(y; f, Var). EP with it
// is exact: one sweep gives the closed-form GP posterior and evidence.
type Normal struct{ Var float64 }

func (Normal) Name() string             { return "normal" }
func (Normal) Role() Role               { return Likelihood }
func (Normal) Builtin() *stdlib.Builtin { return &normalBuiltin }
func (Normal) Projection() string       { return "mean" }

func (l Normal) Params() map[string]float64 { return map[string]float64{"var": l.Var} }

// GaussianObservation marks Normal as a Gaussian factor of its projection
// (graph.GaussianObservation: a factor graph whose sites are all Normal
// is linear-Gaussian).
func (Normal) GaussianObservation() {}

var _ graph.GaussianObservation = Normal{}

// New validates var > 0.
func (Normal) New(p map[string]float64) (Site, error) {
	v := p["var"]
	if !(v > 0) || math.IsInf(v, 1) {
		return nil, &ParamError{Param: "var", Msg: fmt.Sprintf("normal: `var` must be > 0, got %g", v)}
	}
	return Normal{Var: v}, nil
}

func (l Normal) CheckY(y float64) error {
	if !(l.Var > 0) || math.IsInf(l.Var, 1) {
		return fmt.Errorf("gaussian likelihood variance %g, want > 0", l.Var)
	}
	return finiteY(y)
}

// Tilted: N(y; f, σ²)^u N(f; m, v) integrates in closed form with
// s = v + σ²/u.
func (l Normal) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	s := v + l.Var/u
	d := y - m
	logZ = -0.5*math.Log(2*math.Pi*s) - 0.5*d*d/s +
		0.5*(1-u)*math.Log(2*math.Pi*l.Var) - 0.5*math.Log(u)
	return logZ, d / s, -1 / s
}

// GaussianSite is the likelihood itself as an EP site, τ̃ = 1/σ²,
// ν̃ = y/σ²: its site for every cavity and power (families.GaussianSiter),
// exact where the derivative route loses σ² in v + σ²/u.
func (l Normal) GaussianSite(y float64) families.Gaussian {
	return families.Gaussian{Shift: y / l.Var, Prec: 1 / l.Var}
}

// ExpLogLik: the tilted is N(m̂, v̂), so E[log N(y; f, σ²)] = −½ log 2πσ² − ((y − m̂)² + v̂)/(2σ²).
func (l Normal) ExpLogLik(y, m, v float64) float64 {
	_, d1, d2 := l.Tilted(y, m, v, 1)
	mh, vh := m+v*d1, v+v*v*d2
	return -0.5*math.Log(2*math.Pi*l.Var) - ((y-mh)*(y-mh)+vh)/(2*l.Var)
}

// Prob: a regression likelihood has no class probability.
func (Normal) Prob(m, v float64) (float64, bool) { return 0, false }

// LogLik is log N(y; f, σ²): g = (y − f)/σ², h = −1/σ².
func (l Normal) LogLik(y, f float64) (v, g, h float64) {
	d := y - f
	return -0.5*math.Log(2*math.Pi*l.Var) - d*d/(2*l.Var), d / l.Var, -1 / l.Var
}

// LearnParam: the noise variance is learned on the log scale.
func (l Normal) LearnParam() (string, float64, float64, float64) { return "var", l.Var, 0, math.Inf(1) }

// ParamGrad: Ẑ = N(y; m, v + σ²), s = v + σ², ∂ log Ẑ/∂σ² = ½ ((y − m)²/s² − 1/s).
func (l Normal) ParamGrad(y, m, v float64) float64 {
	s := v + l.Var
	d := y - m
	return 0.5 * (d*d/(s*s) - 1/s)
}

func (Normal) Support() string { return "a finite number" }

// In a graph.Net, normal is the Gaussian conditional N(x; mean, var) of a
// Gaussian variable x (NormalPrior, edges x, mean and one of var or prec)
// or the likelihood N(y; mean, var) of an observation y (Normal, edges mean
// and var or prec; its Var field is unused). mean is data, a Gaussian
// variable, an affine expression over Gaussian variables (dot(X[i], w) + b)
// or a selection of those (mu[z[i]]); var is data > 0 or an inverse-Gamma
// variable; prec is data > 0 or a Gamma variable (y ~ normal(mu, 1 / tau)
// is lowered to the prec edge on tau). Both kinds share the rules of
// normalNet: with a = x − mean (or y − mean) the factor is N(a; 0, 1/τ).

func (NormalPrior) NetEdges() []EdgeSpec { return normalEdges(true) }
func (Normal) NetEdges() []EdgeSpec      { return normalEdges(false) }

func normalEdges(x bool) []EdgeSpec {
	const gaussEP = "exact with a data scale; with a latent scale, quadrature in log τ (log s²) of closed-form Gaussian integrals"
	const gaussVMP = "closed form (E τ, E of the other edges)"
	const scaleEP = "exact with a data mean (conjugate); with a Gaussian mean, quadrature in log τ (log s²)"
	out := []EdgeSpec{{Name: "mean", Required: true, Families: []graph.Family{graph.Gaussian}, Doc: "mean (data, Gaussian variables, affine)", EP: gaussEP, VMP: gaussVMP},
		{Name: "var", Required: true, Alt: "prec", Families: []graph.Family{graph.InvGamma}, Doc: "variance (data or an inverse-Gamma variable)", EP: scaleEP, VMP: "closed form (E (x − mean)²)"},
		{Name: "prec", Required: true, Alt: "var", Families: []graph.Family{graph.Gamma}, Doc: "precision (data or a Gamma variable)", EP: scaleEP, VMP: "closed form (E (x − mean)²)"}}
	if x {
		out = append([]EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.Gaussian}, Doc: "the Gaussian variable", EP: gaussEP, VMP: gaussVMP}}, out...)
	}
	return out
}

func (k NormalPrior) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNormalNet(k, f, fam)
}

func (k Normal) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	if err := observation("normal", f); err != nil {
		return err
	}
	if err := finiteY(f.Y[0]); err != nil {
		return &EdgeError{Elem: -1, Branch: -1, Msg: "normal: " + err.Error()}
	}
	return checkNormalNet(k, f, fam)
}

func checkNormalNet(k NetKind, f *graph.NetFactor, fam func(int) graph.Family) error {
	_, hasVar := f.Edge("var")
	_, hasPrec := f.Edge("prec")
	if hasVar && hasPrec {
		return &EdgeError{Edge: "prec", Elem: -1, Branch: -1, Msg: "normal: give var or prec, not both"}
	}
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("normal", name, v); err != nil {
			return err
		}
		if name == "mean" || name == "x" {
			if err := finiteY(v[0]); err != nil {
				return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: "normal: `" + name + "` " + err.Error()}
			}
			return nil
		}
		return positive("normal", name, v)
	})
}

// LogDensityEdges is log N(x; mean, var) (x = y when observed).
func (NormalPrior) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return normalLogDensity(scalarEdge(f, vals, "x"), f, vals)
}

// LogDensityEdges is log N(y; mean, var).
func (Normal) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return normalLogDensity(f.Y[0], f, vals)
}

func normalLogDensity(x float64, f *graph.NetFactor, vals [][]float64) float64 {
	prec := 0.0
	if v, ok := edgeValue(f, vals, "prec"); ok {
		prec = v[0]
	} else {
		prec = 1 / scalarEdge(f, vals, "var")
	}
	d := x - scalarEdge(f, vals, "mean")
	return 0.5*math.Log(prec/(2*math.Pi)) - 0.5*prec*d*d
}

// Rules of normal in a graph.Net (NormalPrior and Normal alike). With
// a = x − mean (y − mean for an observation) the factor is N(a; 0, 1/τ),
// τ the precision (1/var). a is Gaussian under the cavities or beliefs of
// the Gaussian edges, with mean m_a and variance v_a (0 when both are
// data); τ is data, a Gamma variable (prec) or 1/s² of an inverse-Gamma
// variable s² (var).

func (NormalPrior) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return normalEP(nil, in, u, out)
}

func (Normal) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return normalEP(y, in, u, out)
}

func (NormalPrior) VMP(y []float64, in []In, out []Out) (float64, error) {
	return normalVMP(nil, in, out)
}

func (Normal) VMP(y []float64, in []In, out []Out) (float64, error) {
	return normalVMP(y, in, out)
}

// normalParts is a normal factor split into a = Σ sign·edge and its scale.
type normalParts struct {
	ma, va   float64   // mean and variance of a over the proper edges and the data
	edges    []int     // the Gaussian latent edges
	sign     []float64 // +1 for x, −1 for mean
	m, v     []float64 // their means and variances (proper edges)
	improper []int     // positions in edges of edges with an improper distribution
	scale    int       // the latent scale edge, −1 when the scale is data
	prec     bool      // the scale edge is a precision (Gamma), else a variance (inverse Gamma)
	tau      float64   // the data precision
}

func normalSplit(y []float64, in []In) normalParts {
	p := normalParts{scale: -1}
	if y != nil {
		p.ma = y[0]
	}
	for i, e := range in {
		switch e.Name {
		case "x", "mean":
			s := 1.0
			if e.Name == "mean" {
				s = -1
			}
			if e.IsData() {
				p.ma += s * e.Data[0]
				continue
			}
			g := families.GaussianOf(e.Nat)
			p.edges, p.sign = append(p.edges, i), append(p.sign, s)
			if !g.Proper() {
				p.improper = append(p.improper, len(p.edges)-1)
				p.m, p.v = append(p.m, math.NaN()), append(p.v, math.Inf(1))
				continue
			}
			p.m, p.v = append(p.m, g.Mean()), append(p.v, g.Var())
			p.ma += s * g.Mean()
			p.va += g.Var()
		case "prec", "var":
			p.prec = e.Name == "prec"
			switch {
			case !e.IsData():
				p.scale = i
			case p.prec:
				p.tau = e.Data[0]
			default:
				p.tau = 1 / e.Data[0]
			}
		}
	}
	return p
}

// given is the tilted distribution of a at a known precision τ and
// power u: log ∫ N(a; 0, 1/τ)^u N(a; m_a, v_a) da =
// (u/2) log(τ/2π) + ½ log(2π/(uτ)) + log N(m_a; 0, v_a + 1/(uτ)), and
// d1, d2, its derivatives in m_a (−m_a/s and −1/s, s = v_a + 1/(uτ)), from
// which each Gaussian edge's tilted mean and variance follow:
// m + sign·v·d1 and v + v²·d2 (Minka 2001, eqs 3.18–3.19).
func (p *normalParts) given(tau, u float64) (logZ, d1, d2 float64) {
	if p.va == 0 {
		return u * (0.5*math.Log(tau/(2*math.Pi)) - 0.5*tau*p.ma*p.ma), 0, 0
	}
	s := p.va + 1/(u*tau)
	logZ = 0.5*u*math.Log(tau/(2*math.Pi)) + 0.5*math.Log(2*math.Pi/(u*tau)) -
		0.5*math.Log(2*math.Pi*s) - 0.5*p.ma*p.ma/s
	return logZ, -p.ma / s, -1 / s
}

// gaussNorm is Σ A(η_e) over the proper Gaussian edges: the log
// normalisers that turn an integral against their normalised densities
// into one against exp(η·T) (factor.EP's convention).
func (p *normalParts) gaussNorm(in []In) float64 {
	var s float64
	for k, e := range p.edges {
		if !math.IsInf(p.v[k], 1) {
			s += families.GaussianOf(in[e].Nat).LogNormalizer()
		}
	}
	return s
}

// normalEP: with a data precision the tilted distribution is Gaussian —
// exact, closed form (given). One Gaussian edge e may have a flat or
// improper cavity (a chain's next state before any message reached it):
// integrating the others out, f^u is exp(K + c + ζ·(e, e²)) in e with
// ζ = (−sign·m_r/s, −1/(2s)), s = v_r + 1/(uτ), r = a − sign·e, so its
// tilted distribution is cavity + ζ (exact), and the other edges keep
// their cavities (the factor sends them nothing while e is flat). With a
// latent precision or variance and no Gaussian edge the factor is
// conjugate to it (exact): in (log τ, τ) it is (u/2, −u m_a²/2), in
// (log s², 1/s²) it is (−u/2, −u m_a²/2). With both latent the tilted
// distribution is a scale mixture: logQuad integrates over t = log τ (or
// log s²) the cavity of the scale times the closed-form integral over a
// (given), and averages the scale's sufficient statistics and each
// Gaussian edge's conditional moments; infer/mp projects them (the Gamma
// message from a Gaussian likelihood with unknown mean and precision,
// which Infer.NET also computes by quadrature).
func normalEP(y []float64, in []In, u float64, out []Out) (float64, error) {
	p := normalSplit(y, in)
	if len(p.improper) > 1 || len(p.improper) == 1 && p.scale >= 0 {
		return 0, fmt.Errorf("normal: improper cavities on %d of its Gaussian edges: %w", len(p.improper), families.ErrImproper)
	}
	if p.scale < 0 && len(p.improper) == 1 {
		return normalFlatEdge(&p, in, u, out)
	}
	if p.scale < 0 {
		logZ, d1, d2 := p.given(p.tau, u)
		for k, e := range p.edges {
			mean, variance := p.m[k]+p.sign[k]*p.v[k]*d1, p.v[k]+p.v[k]*p.v[k]*d2
			g, err := families.NewGaussian(mean, variance)
			if err != nil {
				return 0, fmt.Errorf("normal: tilted %s: %w", in[e].Name, err)
			}
			out[e].Nat = g.Natural()
			out[e].ESS = []float64{mean, mean*mean + variance}
		}
		return logZ + p.gaussNorm(in), nil
	}
	sc := in[p.scale]
	if p.va == 0 {
		return conjugateEP(normalScale{p}, y, in, u, out)
	}
	sp := families.For(sc.Fam, 2)
	if !sp.Proper(sc.Nat) {
		return 0, fmt.Errorf("normal: improper cavity of %s: %w", sc.Name, families.ErrImproper)
	}
	a := sc.Nat[0] + 1 // Gamma shape
	if !p.prec {
		a = -sc.Nat[0] - 1 // inverse-Gamma shape
	}
	tauOf := func(t float64) float64 {
		if p.prec {
			return math.Exp(t)
		}
		return math.Exp(-t)
	}
	lw := func(t float64) float64 {
		th := math.Exp(t)
		T1 := th
		if !p.prec {
			T1 = 1 / th
		}
		l, _, _ := p.given(tauOf(t), u)
		return sc.Nat[0]*t + sc.Nat[1]*T1 + t + l
	}
	n := len(p.edges)
	em, em2 := make([]float64, n), make([]float64, n)
	var elog, e1 float64
	logZ, err := logQuad(lw, sc.ESS[0], math.Sqrt(families.Trigamma(a)), func(t, w float64) {
		tau := tauOf(t)
		elog += w * t
		if p.prec {
			e1 += w * tau
		} else {
			e1 += w * math.Exp(-t)
		}
		_, d1, d2 := p.given(tau, u)
		for k := range p.edges {
			mean, variance := p.m[k]+p.sign[k]*p.v[k]*d1, p.v[k]+p.v[k]*p.v[k]*d2
			em[k] += w * mean
			em2[k] += w * (mean*mean + variance)
		}
	})
	if err != nil {
		return 0, fmt.Errorf("normal: %w", err)
	}
	out[p.scale].ESS = []float64{elog, e1}
	for k, e := range p.edges {
		out[e].ESS = []float64{em[k], em2[k]}
	}
	return logZ + p.gaussNorm(in), nil
}

// normalFlatEdge is normalEP's case of one Gaussian edge with a flat or
// improper cavity and a data precision.
func normalFlatEdge(p *normalParts, in []In, u float64, out []Out) (float64, error) {
	k := p.improper[0]
	e := p.edges[k]
	s := p.va + 1/(p.tau*u)
	mr := p.ma // the other edges and the data: a = sign·e + r
	zeta := []float64{-p.sign[k] * mr / s, -1 / (2 * s)}
	c := 0.5*u*math.Log(p.tau/(2*math.Pi)) + 0.5*math.Log(2*math.Pi/(u*p.tau)) -
		0.5*math.Log(2*math.Pi*s) - mr*mr/(2*s)
	nat := []float64{in[e].Nat[0] + zeta[0], in[e].Nat[1] + zeta[1]}
	g := families.GaussianOf(nat)
	if !g.Proper() {
		return 0, fmt.Errorf("normal: improper tilted %s: %w", in[e].Name, families.ErrImproper)
	}
	out[e].Nat = nat
	m, v := g.Mean(), g.Var()
	out[e].ESS = []float64{m, m*m + v}
	for j, o := range p.edges {
		if j != k {
			out[o].Nat = in[o].Nat
			out[o].ESS = in[o].ESS
		}
	}
	return c + g.LogNormalizer() + p.gaussNorm(in), nil
}

// normalScale is the normal factor as a conjugate factor of its latent
// scale when a is data (m_a known, v_a = 0).
type normalScale struct{ p normalParts }

func (s normalScale) expForm(y []float64, in []In) (int, []float64, float64, error) {
	q := s.p.ma * s.p.ma / 2
	c := -0.5 * math.Log(2*math.Pi)
	if s.p.prec {
		return s.p.scale, []float64{0.5, -q}, c, nil
	}
	return s.p.scale, []float64{-0.5, -q}, c, nil
}

// normalVMP: with E[a²] = m_a² + v_a, E τ and E log τ under the beliefs,
// E log f = −½ log 2π + ½ E log τ − ½ E τ E[a²]; the message to a Gamma
// precision is (½, −E[a²]/2), to an inverse-Gamma variance (−½, −E[a²]/2),
// and to a Gaussian edge e with a = sign·e + r it is, in (e, e²),
// (−E τ · sign · E r, −E τ/2) (Winn & Bishop 2005, table 1).
func normalVMP(y []float64, in []In, out []Out) (float64, error) {
	p := normalSplit(y, in)
	if len(p.improper) > 1 || len(p.improper) == 1 && (len(p.edges) > 1 || p.scale >= 0) {
		return 0, fmt.Errorf("normal: improper belief of %s: %w", in[p.edges[p.improper[0]]].Name, families.ErrImproper)
	}
	ea2 := p.ma*p.ma + p.va
	etau, elogtau := p.tau, math.Log(p.tau)
	if p.scale >= 0 {
		ess := in[p.scale].ESS
		if ess == nil {
			return 0, fmt.Errorf("normal: improper belief of %s: %w", in[p.scale].Name, families.ErrImproper)
		}
		if p.prec {
			etau, elogtau = ess[1], ess[0]
			out[p.scale].Nat = []float64{0.5, -ea2 / 2}
		} else {
			etau, elogtau = ess[1], -ess[0]
			out[p.scale].Nat = []float64{-0.5, -ea2 / 2}
		}
	}
	for k, e := range p.edges {
		r := p.ma // the improper edge is not in m_a
		if !math.IsInf(p.v[k], 1) {
			r -= p.sign[k] * p.m[k]
		}
		out[e].Nat = []float64{-etau * p.sign[k] * r, -etau / 2}
	}
	if len(p.improper) > 0 {
		return math.NaN(), nil // E log f needs every belief; the message to the improper edge does not
	}
	return -0.5*math.Log(2*math.Pi) + 0.5*elogtau - 0.5*etau*ea2, nil
}
