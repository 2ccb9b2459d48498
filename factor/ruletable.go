package factor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Column is one (method, divergence) pair of the rule table; Div is
// infer.DivNone for methods without a divergence (exact, mcmc) and for the
// predict and learn columns.
type Column struct {
	Method infer.Method
	Div    infer.DivFamily
}

func (c Column) String() string {
	if c.Div == infer.DivNone {
		return string(c.Method)
	}
	return string(c.Method) + " " + c.Div.String()
}

// The columns of the rule table, as the rules below test them.
var (
	epKL        = Column{infer.MethodEP, infer.DivKL}
	epAlpha     = Column{infer.MethodEP, infer.DivAlpha}
	epVMP       = Column{infer.MethodEP, infer.DivVMP}
	epRelaxedKL = Column{infer.MethodEP, infer.DivRelaxedKL}
	epT         = Column{infer.MethodEP, infer.DivT}
	bpKL        = Column{infer.MethodBP, infer.DivKL}
	bpAlpha     = Column{infer.MethodBP, infer.DivAlpha}
	bpRelaxedKL = Column{infer.MethodBP, infer.DivRelaxedKL}
	exact       = Column{Method: infer.MethodExact}
	mcmc        = Column{Method: infer.MethodMCMC}
	predict     = Column{Method: infer.ColumnPredict}
	learn       = Column{Method: infer.ColumnLearn}
)

// Columns are the columns of the rule table.
var Columns = []Column{epKL, epAlpha, epVMP, epRelaxedKL, epT, bpKL, bpAlpha, bpRelaxedKL, exact, mcmc, predict, learn}

// ep reports whether c is an EP column under a divergence other than t
// (the Gaussian family's EP: kl, alpha, relaxed_kl).
func (c Column) ep() bool { return c.Method == infer.MethodEP && c.Div != infer.DivT }

// bp reports whether c is a BP column (bp has no t divergence).
func (c Column) bp() bool { return c.Method == infer.MethodBP && c.Div != infer.DivT }

// gold reports whether c is a gold-standard column (exact, mcmc).
func (c Column) gold() bool { return c.Method.Gold() }

// PowerOrRelaxed reports whether c is EP under a divergence other than kl
// (power EP, relaxed EP, t-EP): the columns where most likelihoods' rules
// have no independent reference.
func (c Column) PowerOrRelaxed() bool { return c.Method == infer.MethodEP && c.Div != infer.DivKL }

// Rule is one cell of the rule table: kind Kind is handled under Column,
// with Quality; Approx is true when the moments come from the infer line's
// numerical scheme rather than the kind's own Tilted rule; Via names the
// interface the rule comes from (for a PriorKind, the use of its family:
// GaussianPrior, TPrior, or GaussianLimit, a Student-t prior under
// Gaussian EP).
type Rule struct {
	Kind    Kind
	Column  Column
	Quality Quality
	Approx  bool
	Via     string
}

// Support derives the rule of kind k under column c from the interfaces k
// implements; ok is false when there is none.
func Support(k Kind, c Column) (r Rule, ok bool) {
	via, approx := support(k, c)
	if via == "" {
		return Rule{}, false
	}
	return Rule{Kind: k, Column: c, Quality: quality(k, c), Approx: approx, Via: via}, true
}

// Expander is a kind that expands into factors of another kind at compile
// time (factors(G, x) into tables); its rules are that kind's.
type Expander interface {
	Expands() Kind
}

func support(k Kind, c Column) (via string, approx bool) {
	if e, ok := k.(Expander); ok {
		k = e.Expands()
	}
	if via := netSupport(k, c); via != "" {
		return via, false
	}
	if c.Div == infer.DivVMP {
		return "", false // the VMP limit runs on the typed factor graph only
	}
	switch k.Role() {
	case Likelihood:
		return likelihoodSupport(k, c)
	case Prior:
		return priorSupport(k, c)
	}
	return potentialSupport(k, c)
}

// netSupport is the rule of a kind of the typed factor graph (graph.Net,
// infer/mp): EP and power EP from its EP rule, the alpha → 0 limit (VMP)
// from its VMP rule, exact and mcmc from its log density on edge values.
func netSupport(k Kind, c Column) string {
	if !has[NetKind](k) {
		return ""
	}
	switch {
	case (c == epKL || c == epAlpha) && has[EP](k):
		return "EP"
	case c == epVMP && has[VMP](k):
		return "VMP"
	case c.gold() && !has[LogDensity](k) && !has[Tabler](k) && !has[graph.PriorKind](k):
		return "LogDensityEdges"
	}
	return ""
}

func has[T any](k Kind) bool {
	_, ok := k.(T)
	return ok
}

func likelihoodSupport(k Kind, c Column) (string, bool) {
	switch {
	case c == epT && has[Escort](k):
		return "Escort", false
	case c.ep() && has[Tilted](k):
		return "Tilted", false
	case c == epKL && has[LogDensity](k):
		return "LogDensity", true
	case c.gold() && has[LogDensity](k):
		return "LogDensity", false
	case c == predict && has[ClassProb](k) && isClassifier(k):
		return "ClassProb", false
	case c == predict && has[MeanObs](k):
		return "MeanObs", false
	case c == learn && has[Tilted](k) && (has[ParamGrad](k) || !hasParams(k)):
		return "Tilted+ParamGrad", false
	}
	return "", false
}

// isClassifier reports whether a likelihood's ClassProb is a class
// probability (probit, step, logistic) rather than a refusal (normal).
func isClassifier(k Kind) bool {
	_, ok := k.(ClassProb).Prob(0, 1)
	return ok
}

// hasParams reports whether a likelihood has parameters besides its projection.
func hasParams(k Kind) bool {
	s, ok := k.(Site)
	return ok && len(s.Params()) > 0
}

func priorSupport(k Kind, c Column) (string, bool) {
	fam, block := priorFamily(k)
	gauss, t := block && fam == graph.Gaussian, block && fam == graph.StudentT
	switch {
	case gauss && (c.ep() || c.gold() || c == learn):
		return "GaussianPrior", false
	case t && c == epT:
		return "TPrior", false
	case t && c == epKL:
		return "GaussianLimit", false
	case has[DiscretePrior](k) && (c.bp() || c.gold()):
		return "DiscretePrior", false
	case has[Tabler](k) && (c.bp() || c.gold()):
		return "Tabler", false
	case has[Selector](k) && c.ep():
		return "Selector", false
	}
	return "", false
}

func potentialSupport(k Kind, c Column) (string, bool) {
	switch {
	case has[Tabler](k) && (c.bp() || c.gold()):
		return "Tabler", false
	case has[Numerical](k) && c == epKL:
		return "Numerical", true
	case has[Numerical](k) && c.gold():
		return "Numerical", false
	}
	return "", false
}

// Rules returns every rule of the table, kind by kind in table order.
func Rules() []Rule {
	var out []Rule
	for _, k := range kinds {
		for _, c := range Columns {
			if r, ok := Support(k, c); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// FindRule returns the rule of kind k under column c, or an error that
// lists where k is supported and what the method handles, e.g.
//
//	no rule for step with divergence t in bp; available: step in ep with kl, alpha, relaxed_kl, t; step in exact; step in mcmc; bp handles uniform_spin, ising, ... (step as a likelihood)
func FindRule(k Kind, c Column) (Rule, error) {
	if r, ok := Support(k, c); ok {
		return r, nil
	}
	var b strings.Builder
	if c.Div == infer.DivNone {
		fmt.Fprintf(&b, "no rule for %s in %s", k.Name(), c.Method)
	} else {
		fmt.Fprintf(&b, "no rule for %s with divergence %s in %s", k.Name(), c.Div, c.Method)
	}
	b.WriteString("; available: " + available(k, c.Method))
	fmt.Fprintf(&b, " (%s as a %s)", k.Name(), k.Role())
	return Rule{}, fmt.Errorf("%s", b.String())
}

// available lists the methods and divergences that handle k, and the
// kinds that method handles.
func available(k Kind, method infer.Method) string {
	byMethod := map[infer.Method][]string{}
	var methods []infer.Method
	for _, c := range Columns {
		if c == predict || c == learn {
			continue
		}
		if _, ok := Support(k, c); ok {
			if _, seen := byMethod[c.Method]; !seen {
				methods = append(methods, c.Method)
			}
			byMethod[c.Method] = append(byMethod[c.Method], c.Div.String())
		}
	}
	var parts []string
	for _, m := range methods {
		if divs := byMethod[m]; divs[0] != "" {
			parts = append(parts, fmt.Sprintf("%s in %s with %s", k.Name(), m, strings.Join(divs, ", ")))
		} else {
			parts = append(parts, fmt.Sprintf("%s in %s", k.Name(), m))
		}
	}
	var handled []string
	for _, other := range kinds {
		for _, c := range Columns {
			if _, ok := Support(other, c); ok && c.Method == method {
				handled = append(handled, other.Name())
				break
			}
		}
	}
	if len(handled) > 0 {
		parts = append(parts, string(method)+" handles "+strings.Join(slices.Compact(handled), ", "))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// cell renders a rule table cell: "stable", "exp." (experimental), with
// "+approx" when the moments come from the numerical scheme, or "—".
func cell(k Kind, c Column) string {
	r, ok := Support(k, c)
	if !ok {
		return "—"
	}
	s := "stable"
	if r.Quality == Experimental {
		s = "exp."
	}
	if r.Approx {
		s += "+approx"
	}
	return s
}

// Markdown renders the rule table: one row per kind and role, one column
// per method and divergence (plus predict and learn). docs/language.md
// embeds it between <!-- rules:begin --> and <!-- rules:end --> (a test
// keeps them equal; `go test ./factor -update` rewrites the docs).
func Markdown() string {
	var b strings.Builder
	b.WriteString("| factor | role |")
	for _, c := range Columns {
		b.WriteString(" " + c.String() + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(Columns)) + "\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %s | %s |", k.Name(), k.Role())
		for _, c := range Columns {
			b.WriteString(" " + cell(k, c) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Text renders the rule table for a terminal (`fg rules`): aligned columns.
func Text() string {
	rows := [][]string{{"factor", "role"}}
	for _, c := range Columns {
		rows[0] = append(rows[0], c.String())
	}
	for _, k := range kinds {
		row := []string{k.Name(), k.Role().String()}
		for _, c := range Columns {
			row = append(row, cell(k, c))
		}
		rows = append(rows, row)
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, s := range r {
			width[i] = max(width[i], len([]rune(s)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, s := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(s + strings.Repeat(" ", width[i]-len([]rune(s))))
		}
		b.WriteString("\n")
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
