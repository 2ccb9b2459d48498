package stdlib

import (
	"fmt"
	"sort"
	"strings"
)

// Quality marks how well a message rule is established.
type Quality int

const (
	// Stable rules are derived in the cited papers and tested against
	// independent references.
	Stable Quality = iota
	// Experimental rules run but lack an external reference.
	Experimental
)

func (q Quality) String() string {
	if q == Stable {
		return "stable"
	}
	return "experimental"
}

// Rule says that Method handles factors of kind Factor under the divergence
// family Divergence ("kl", "relaxed_kl", "alpha", "t"; "" for methods without
// a divergence: exact and mcmc). Approx is true when the tilted moments come
// from a numerical scheme (the infer line's approx option) rather than a
// closed form.
type Rule struct {
	Factor     string
	Method     string
	Divergence string
	Quality    Quality
	Approx     bool
	Source     string // where the update comes from
}

// FactorKinds are the factor kinds a compiled model can contain: the priors
// (normal, mvnormal, gp, student_t, tp, uniform_spin), the likelihoods
// (probit, step, normal, logistic), the potentials (ising, field, table, exp)
// and the losses, which only occur inside exp.
var FactorKinds = []string{"normal", "mvnormal", "gp", "student_t", "tp", "uniform_spin",
	"probit", "step", "logistic", "ising", "field", "table", "exp", "logistic_loss", "hinge", "quasi01"}

var rules = buildRules()

func buildRules() []Rule {
	var rs []Rule
	add := func(m, d string, q Quality, approx bool, src string, kinds ...string) {
		for _, k := range kinds {
			rs = append(rs, Rule{Factor: k, Method: m, Divergence: d, Quality: q, Approx: approx, Source: src})
		}
	}
	// Gaussian priors are absorbed into q once (algorithms.md).
	for _, d := range []string{"kl", "alpha", "relaxed_kl"} {
		add("ep", d, Stable, false, "absorbed into q", "normal", "mvnormal", "gp")
	}
	add("ep", "kl", Stable, false, "rodrigues eqs 9–22", "probit", "step")
	add("ep", "alpha", Stable, false, "qi-guo long App. C eqs 41–42", "step")
	add("ep", "alpha", Experimental, false, "power EP (Minka 2004) on Φ", "probit")
	add("ep", "relaxed_kl", Stable, false, "qi-guo eqs 14–21, App. B", "step")
	add("ep", "relaxed_kl", Experimental, false, "qi-guo eqs 14–21 on Φ", "probit")
	add("ep", "t", Stable, false, "futami eq. 43, escort moments", "step", "student_t", "tp")
	add("ep", "t", Experimental, false, "futami, escort moments on Φ", "probit")
	add("ep", "kl", Experimental, false, "alpha = 1 Gaussian site", "student_t", "tp")
	add("ep", "kl", Stable, true, "roche FF-EP; gh on 1-D cavities", "logistic", "exp", "logistic_loss", "hinge")
	add("ep", "kl", Experimental, true, "roche FF-EP (LA/QLA unstable)", "quasi01")
	for _, d := range []string{"kl", "alpha", "relaxed_kl"} {
		add("bp", d, Stable, false, "libDAI BP/FBP; qi-guo §4.2", "ising", "field", "table", "uniform_spin")
	}
	for _, k := range FactorKinds {
		add("exact", "", Stable, false, "junction tree / quadrature / importance sampling", k)
		add("mcmc", "", Stable, false, "elliptical slice / Gibbs", k)
	}
	// Gaussian-likelihood sites are exact under KL.
	add("ep", "kl", Stable, false, "Gaussian site, closed form", "normal")
	return dedup(rs)
}

func dedup(rs []Rule) []Rule {
	seen := map[[3]string]bool{}
	var out []Rule
	for _, r := range rs {
		k := [3]string{r.Factor, r.Method, r.Divergence}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// Rules returns the whole table sorted by method, divergence, factor.
func Rules() []Rule {
	out := append([]Rule(nil), rules...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		if a.Divergence != b.Divergence {
			return a.Divergence < b.Divergence
		}
		return a.Factor < b.Factor
	})
	return out
}

// LookupRule finds the rule for a factor kind, method and divergence family.
// A miss returns an error listing what exists, e.g.
//
//	no rule for step with divergence t in bp; available: step in ep with kl, alpha, relaxed_kl, t; ...
func LookupRule(factor, method, div string) (Rule, error) {
	for _, r := range rules {
		if r.Factor == factor && r.Method == method && r.Divergence == div {
			return r, nil
		}
	}
	var b strings.Builder
	if div == "" {
		fmt.Fprintf(&b, "no rule for %s in %s", factor, method)
	} else {
		fmt.Fprintf(&b, "no rule for %s with divergence %s in %s", factor, div, method)
	}
	b.WriteString("; available: ")
	b.WriteString(available(factor, method))
	return Rule{}, fmt.Errorf("%s", b.String())
}

// available lists, for a missed lookup, what the method supports with its
// divergences and where the factor kind is supported.
func available(factor, method string) string {
	var parts []string
	if ds := divergencesFor(factor, method); len(ds) > 0 {
		parts = append(parts, fmt.Sprintf("%s in %s with %s", factor, method, strings.Join(ds, ", ")))
	}
	for _, m := range []string{"ep", "bp", "exact", "mcmc"} {
		if m == method {
			continue
		}
		if ds := divergencesFor(factor, m); len(ds) > 0 {
			parts = append(parts, fmt.Sprintf("%s in %s with %s", factor, m, strings.Join(ds, ", ")))
		}
	}
	var kinds []string
	for _, r := range Rules() {
		if r.Method == method && !contains(kinds, r.Factor) {
			kinds = append(kinds, r.Factor)
		}
	}
	if len(kinds) > 0 {
		parts = append(parts, method+" handles "+strings.Join(kinds, ", "))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

func divergencesFor(factor, method string) []string {
	var ds []string
	for _, r := range Rules() {
		if r.Factor == factor && r.Method == method {
			d := r.Divergence
			if d == "" {
				d = "no divergence"
			}
			ds = append(ds, d)
		}
	}
	return ds
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// ruleColumns are the (method, divergence) columns of RulesMarkdown.
var ruleColumns = [][2]string{{"ep", "kl"}, {"ep", "alpha"}, {"ep", "relaxed_kl"}, {"ep", "t"},
	{"bp", "kl"}, {"bp", "alpha"}, {"bp", "relaxed_kl"}, {"exact", ""}, {"mcmc", ""}}

// RulesMarkdown renders the rule table as a markdown table: one row per
// factor kind, one column per method and divergence; a cell is "stable",
// "exp." (experimental), with "+approx" when the moments come from the
// infer line's numerical scheme, or "—" when there is no rule.
// docs/language.md embeds this table (a test keeps them equal).
func RulesMarkdown() string {
	var b strings.Builder
	b.WriteString("| factor |")
	for _, c := range ruleColumns {
		name := c[0]
		if c[1] != "" {
			name += " " + c[1]
		}
		b.WriteString(" " + name + " |")
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(ruleColumns)))
	b.WriteString("\n")
	for _, k := range FactorKinds {
		b.WriteString("| " + k + " |")
		for _, c := range ruleColumns {
			cell := "—"
			if r, err := LookupRule(k, c[0], c[1]); err == nil {
				cell = "stable"
				if r.Quality == Experimental {
					cell = "exp."
				}
				if r.Approx {
					cell += "+approx"
				}
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
