package graph

import "iter"

// FactorList is a model's factors in their one order, each with its
// label: what the readers that list or draw a whole model read (Dump,
// DOT, `fg check`'s count, the labels an expect line may name). A Graph
// is the FactorList of its own factors; a compiled model whose real
// latents are held by its real-latent IR keeps only the discrete factors
// in its Graph, and its list (compile.Model.Factors) interleaves them
// with the continuous factors made on demand from that IR.
type FactorList interface {
	NumFactors() int
	// LabelledFactor is factor i with its Label set.
	LabelledFactor(i int) Factor
	// LabelledFactors iterates over the factors in order, each with its
	// Label set.
	LabelledFactors() iter.Seq2[int, Factor]
}

// Param is one named scalar parameter of a factor.
type Param struct {
	Name  string
	Value float64
}

// ParamList is a FactorList whose factors have named parameters their
// Factor values do not carry besides Scalar (compile.Model.Factors: a
// likelihood site's observation y and its likelihood's parameters, a
// Student-t prior's ν). Dump lists them with the Scalar.
type ParamList interface {
	FactorList
	// LabelledFactorParams iterates over the factors in order as
	// LabelledFactors does, each with its parameters (nil when it has
	// none).
	LabelledFactorParams() iter.Seq2[Factor, []Param]
}

// LabelledFactor is factor i with its Label (FactorLabel).
func (g *Graph) LabelledFactor(i int) Factor {
	f := g.Factor(i)
	if f.Label == "" {
		f.Label = g.FactorLabel(i)
	}
	return f
}

// LabelledFactors iterates over the factors in order, each with its
// Label (FactorLabel).
func (g *Graph) LabelledFactors() iter.Seq2[int, Factor] {
	return func(yield func(int, Factor) bool) {
		for i, f := range g.Factors() {
			if f.Label == "" {
				f.Label = g.FactorLabel(i)
			}
			if !yield(i, f) {
				return
			}
		}
	}
}

// hasCycle reports whether the factor graph of nv variables and the nf
// factors fs contains a cycle: a forest on N nodes with C components has
// exactly N − C edges, so every extra edge closes a cycle, and union–find
// detects the first one.
func hasCycle(nv, nf int, fs iter.Seq2[int, Factor]) bool {
	u := newUnionFind(nv + nf)
	for i, f := range fs {
		for _, v := range distinctVars(f.Vars) {
			if !u.union(nv+i, v) {
				return true
			}
		}
	}
	return false
}
