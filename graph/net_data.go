package graph

// The numbers of a factor's data edges, flattened: the Values of its
// edges in edge order, a selection's branches depth-first. Learning reads
// them to differentiate the evidence in the data a learned param reaches
// (a beta prior's pseudo-counts, a gamma prior's rate): Data lists them,
// WithData replaces them. Affine and WithAffine do the same for the
// coefficients and constants of its edges over variables (a learned
// coefficient or offset in a mean, b * mu + c).

// Data returns the numbers of f's data edges (see above), copied.
func (f *NetFactor) Data() []float64 {
	var out []float64
	for _, e := range f.Edges {
		out = e.appendData(out)
	}
	return out
}

func (e Edge) appendData(out []float64) []float64 {
	out = append(out, e.Value...)
	for _, b := range e.Branches {
		out = b.appendData(out)
	}
	return out
}

// WithData returns a copy of f whose data numbers are x (in Data's order,
// len(x) = len(f.Data())); f itself is unchanged. Edges without data share
// their variables and coefficients with f.
func (f *NetFactor) WithData(x []float64) NetFactor {
	out := *f
	out.Edges = make([]Edge, len(f.Edges))
	for i, e := range f.Edges {
		out.Edges[i], x = e.withData(x)
	}
	return out
}

func (e Edge) withData(x []float64) (Edge, []float64) {
	if len(e.Value) > 0 {
		e.Value, x = append([]float64(nil), x[:len(e.Value)]...), x[len(e.Value):]
	}
	if len(e.Branches) > 0 {
		bs := make([]Edge, len(e.Branches))
		for k, b := range e.Branches {
			bs[k], x = b.withData(x)
		}
		e.Branches = bs
	}
	return e, x
}

// Affine returns the coefficients and constant of each of f's edges over
// variables — an affine edge's, and a variable edge's 1 and 0 — in edge
// order, a selection's branches depth-first, copied.
func (f *NetFactor) Affine() []float64 {
	var out []float64
	for _, e := range f.Edges {
		out = e.appendAffine(out)
	}
	return out
}

func (e Edge) appendAffine(out []float64) []float64 {
	if len(e.Vars) > 0 {
		out = append(append(out, e.Coefs...), e.Const)
	}
	for _, b := range e.Branches {
		out = b.appendAffine(out)
	}
	return out
}

// WithAffine returns a copy of f whose coefficients and constants are x
// (in Affine's order, len(x) = len(f.Affine())); f itself is unchanged.
// The variables and data are shared with f.
func (f *NetFactor) WithAffine(x []float64) NetFactor {
	out := *f
	out.Edges = make([]Edge, len(f.Edges))
	for i, e := range f.Edges {
		out.Edges[i], x = e.withAffine(x)
	}
	return out
}

func (e Edge) withAffine(x []float64) (Edge, []float64) {
	if n := len(e.Vars); n > 0 {
		e.Coefs, e.Const, x = append([]float64(nil), x[:n]...), x[n], x[n+1:]
	}
	if len(e.Branches) > 0 {
		bs := make([]Edge, len(e.Branches))
		for k, b := range e.Branches {
			bs[k], x = b.withAffine(x)
		}
		e.Branches = bs
	}
	return e, x
}
