package compile

import (
	"strings"

	"github.com/fg-infer/fg/lang/ast"
)

// labelRun makes the labels kind(NAME) of the n elements of one statement
// (name appends element k's NAME) as substrings of one string, so that a
// statement over 10⁶ elements allocates its labels once rather than once
// each; label(k) is element k's.
func labelRun(n int, kind string, name func(b []byte, k int) []byte) (label func(k int) string) {
	if n == 0 {
		return func(int) string { return "" }
	}
	// Room for n labels as long as the last (the longest index).
	b := make([]byte, 0, n*(len(kind)+2+len(name(nil, n-1))))
	ends := make([]int, n)
	for k := range n {
		b = append(b, kind...)
		b = append(b, '(')
		b = name(b, k)
		b = append(b, ')')
		ends[k] = len(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	sb.Write(b)
	all := sb.String()
	return func(k int) string {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		return all[start:ends[k]]
	}
}

// indexLabels says how the labels of a statement's elements are made on
// demand (graph.LabelColumn.AddIndexed) when they are prefix, first + k and
// suffix for element k: normal(y[3]) in a vector plate, normal(x[3]) on
// consecutive elements of a one-dimensional latent. ok is false when they
// are not (labelRun makes them).
type indexLabels struct {
	ok             bool
	prefix, suffix string
	first          int
}

// siteIndexLabels are the labels kind(Y[i]) of the sites of a vector
// plate's statement with observations lhs.
func (c *compiler) siteIndexLabels(kind string, lhs ast.Expr, y val) indexLabels {
	p := c.vec
	if p == nil || lhs != ast.Expr(p.lhs) || y.size() <= 1 {
		return indexLabels{}
	}
	return indexLabels{ok: true, prefix: kind + "(" + p.prefix, first: p.lo + p.off, suffix: "])"}
}

// condIndexLabels are the labels kind(x[i]) of conditionals on the
// variables ids when they are consecutive elements of a one-dimensional
// latent.
func (c *compiler) condIndexLabels(kind string, ids []int) indexLabels {
	if len(ids) < 2 {
		return indexLabels{}
	}
	g := c.m.Graph
	l := &g.Latents[g.Vars[ids[0]].Latent]
	if len(l.Shape) != 1 {
		return indexLabels{}
	}
	for k, id := range ids {
		if id != ids[0]+k {
			return indexLabels{}
		}
	}
	return indexLabels{ok: true, prefix: kind + "(" + l.Name + "[", first: ids[0] - l.First, suffix: "])"}
}
