package factor

import "github.com/fg-infer/fg/stdlib"

var expBuiltin = stdlib.Builtin{Name: "exp", Kind: stdlib.Potential, Domains: realDomain,
	Params: []stdlib.Param{stdlib.Required("e", stdlib.LatentT, "log-potential: an expression of one real latent vector")},
	Doc:    "user potential f(w) = exp(e(w)); ep computes its moments with a numerical scheme (approx option)"}

// Exp is a user potential f(w) = exp(e(w)) of one real latent vector; compile
// differentiates e by forward-mode automatic differentiation (stdlib/ad) or
// recognises a loss mini-batch (stdlib/loss.Batch). EP's moments come from
// the infer line's numerical scheme (infer/ffep, Roche's FF-EP); the gold
// standards evaluate log f.
type Exp struct{}

func (Exp) Name() string             { return "exp" }
func (Exp) Role() Role               { return Potential }
func (Exp) Builtin() *stdlib.Builtin { return &expBuiltin }
func (Exp) numerical()               {}
