package factor

import "github.com/fg-infer/fg/stdlib"

var uniformSpinBuiltin = stdlib.Builtin{Name: "uniform_spin", Kind: stdlib.Distribution, Domains: spinDomain, Prior: true,
	Doc: "uniform prior on spins: p(x = -1) = p(x = +1) = 1/2 (adds no factor)"}

// UniformSpin is the uniform prior on spins; it adds no factor, so every
// discrete engine handles it.
type UniformSpin struct{}

func (UniformSpin) Name() string             { return "uniform_spin" }
func (UniformSpin) Role() Role               { return Prior }
func (UniformSpin) Builtin() *stdlib.Builtin { return &uniformSpinBuiltin }
func (UniformSpin) discretePrior()           {}
