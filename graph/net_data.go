package graph

// The numbers of a factor's edges, flattened in edge order (a selection's
// branches depth-first). Learning reads them to differentiate the
// evidence in what a learned param reaches: Data lists the data edges'
// Values (a beta prior's pseudo-counts, a gamma prior's rate) and
// WithData replaces them; Affine lists the coefficients and constant of
// every edge over variables (a learned coefficient or offset in a mean,
// b * mu + c) and WithAffine replaces them.

// Data returns the numbers of f's data edges (see above), copied.
func (f *NetFactor) Data() []float64 { return f.numbers(Edge.data) }

// WithData returns a copy of f whose data numbers are x (in Data's order,
// len(x) = len(f.Data())); f itself is unchanged. Edges without data share
// their variables and coefficients with f.
func (f *NetFactor) WithData(x []float64) NetFactor {
	return f.withNumbers(x, func(e *Edge, x []float64) []float64 {
		if len(e.Value) > 0 {
			e.Value, x = append([]float64(nil), x[:len(e.Value)]...), x[len(e.Value):]
		}
		return x
	})
}

// Affine returns the coefficients and constant of each of f's edges over
// variables — an affine edge's, and a variable edge's 1 and 0 — in edge
// order, a selection's branches depth-first, copied.
func (f *NetFactor) Affine() []float64 { return f.numbers(Edge.affine) }

// WithAffine returns a copy of f whose coefficients and constants are x
// (in Affine's order, len(x) = len(f.Affine())); f itself is unchanged.
// The variables and data are shared with f.
func (f *NetFactor) WithAffine(x []float64) NetFactor {
	return f.withNumbers(x, func(e *Edge, x []float64) []float64 {
		if n := len(e.Vars); n > 0 {
			e.Coefs, e.Const, x = append([]float64(nil), x[:n]...), x[n], x[n+1:]
		}
		return x
	})
}

func (e Edge) data() []float64 { return e.Value }

func (e Edge) affine() []float64 {
	if len(e.Vars) == 0 {
		return nil
	}
	return append(e.Coefs[:len(e.Coefs):len(e.Coefs)], e.Const)
}

// numbers flattens own(e) over f's edges and their branches (see above).
func (f *NetFactor) numbers(own func(Edge) []float64) []float64 {
	var out []float64
	var walk func(e Edge)
	walk = func(e Edge) {
		out = append(out, own(e)...)
		for _, b := range e.Branches {
			walk(b)
		}
	}
	for _, e := range f.Edges {
		walk(e)
	}
	return out
}

// withNumbers copies f, letting set replace each edge's numbers (of a
// copied edge, its branches copied too) from the front of x, returning
// the rest of x.
func (f *NetFactor) withNumbers(x []float64, set func(e *Edge, x []float64) []float64) NetFactor {
	out := *f
	out.Edges = make([]Edge, len(f.Edges))
	var walk func(e Edge) Edge
	walk = func(e Edge) Edge {
		x = set(&e, x)
		if len(e.Branches) > 0 {
			bs := make([]Edge, len(e.Branches))
			for k, b := range e.Branches {
				bs[k] = walk(b)
			}
			e.Branches = bs
		}
		return e
	}
	for i, e := range f.Edges {
		out.Edges[i] = walk(e)
	}
	return out
}
