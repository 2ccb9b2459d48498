package graph

import "github.com/fg-infer/fg/lang/ast"

// SiteKind is a likelihood as a site holds it: its kind with its
// parameters (eps for step, var for normal). Its type is the kind
// (compare with SameKind, print with Name) and carries the rules, which
// an engine gets by type assertion to package factor's rule interfaces
// (factor.Site, factor.Tilted, factor.ClassProb), as for a Net's kinds.
type SiteKind interface {
	Kind
	// Params returns the likelihood's parameters by name (nil when it
	// has none); the map is shared: read it, never write.
	Params() map[string]float64
}

// Site is one likelihood factor p(Y | aᵀw) on a single projection aᵀw of
// a block's vector. Exactly one of Index (≥ 0: a = e_Index) and Proj
// (non-nil: a = Proj) is set.
type Site struct {
	Lik   SiteKind // the likelihood with its parameters
	Y     float64  // the observation: ±1 for classification, the target for normal
	Index int
	Proj  []float64
	// Factor is the factor's number in its model (compile.Model.Factors).
	Factor int
	Label  string // e.g. "step(y[4])"
	Pos    ast.Pos
	// Vars, when non-nil, makes Proj sparse: aᵀw = Σ_k Proj[k]·w[Vars[k]].
	// Offset is a constant added to the projection, aᵀw + Offset: a
	// factor-graph site on the joint vector of its latents (infer/run's
	// gold standards). Block sites leave both zero.
	Vars   []int
	Offset float64
}

// AffineSite is a likelihood site on an affine form of the factor
// graph's variables, Aff. The sites of one statement share one *Site,
// Shared, for what they have in common (Lik and Pos; its Index is −1
// and Proj nil), so that a plate of 10⁶ sites keeps one Site, not 10⁶:
// Y, Factor and Label are the site's own (Shared's are not). BlockSite
// assembles the whole Site.
type AffineSite struct {
	Shared *Site // Lik and Pos of the statement; its Y, Factor, Label, Index and Proj are not this site's
	Y      float64
	Factor int    // the factor's number (compile.Model.Factors)
	Label  string // e.g. "normal(y[3])"
	Aff    Form
}

// BlockSite is s as a Site with its own Y, Factor and Label (Index −1, no
// Proj; the projection is Aff).
func (s AffineSite) BlockSite() Site {
	out := *s.Shared
	out.Y, out.Factor, out.Label, out.Index, out.Proj = s.Y, s.Factor, s.Label, -1, nil
	return out
}
