package ad

// Sum returns Σ_k u_k (0 for an empty slice).
func Sum(u []Jet) Jet {
	acc := Const(0)
	d := 0
	for _, x := range u {
		d = max(d, len(x.G))
	}
	if d > 0 {
		acc.G = make([]float64, d)
		acc.H = make([]float64, d)
	}
	for _, x := range u {
		acc.V += x.V
		if x.G == nil {
			continue
		}
		for j := range x.G {
			acc.G[j] += x.G[j]
			acc.H[j] += x.H[j]
		}
	}
	return acc
}

// Dot returns Σ_k u_k v_k with exact diagonal second derivatives
// (product rule termwise).
func Dot(u, v []Jet) Jet {
	terms := make([]Jet, min(len(u), len(v)))
	for k := range terms {
		terms[k] = u[k].Mul(v[k])
	}
	return Sum(terms)
}

// DotConst returns Σ_k c_k u_k for constant weights c (a projection cᵀw):
// linear, so G = Σ c_k G(u_k) and H = Σ c_k H(u_k). It is the fast path for
// dot(x, w) with data x.
func DotConst(c []float64, u []Jet) Jet {
	acc := Const(0)
	n := min(len(c), len(u))
	d := 0
	for k := 0; k < n; k++ {
		d = max(d, len(u[k].G))
	}
	if d > 0 {
		acc.G = make([]float64, d)
		acc.H = make([]float64, d)
	}
	for k := 0; k < n; k++ {
		acc.V += c[k] * u[k].V
		if u[k].G == nil {
			continue
		}
		for j := range u[k].G {
			acc.G[j] += c[k] * u[k].G[j]
			acc.H[j] += c[k] * u[k].H[j]
		}
	}
	return acc
}

// Func is a scalar function of a vector of jets, e.g. a compiled
// `factor exp(EXPR)` log-potential.
type Func func(w []Jet) Jet

// Potential adapts a Func of d inputs to the log-potential interface of the
// engines (graph.Potential): LogF evaluates on constant jets (values only),
// Derivs on the independent variables.
type Potential struct {
	D int
	F Func
}

// LogF returns log f(w).
func (p Potential) LogF(w []float64) float64 { return p.F(Consts(w[:p.D])).V }

// Derivs fills grad and hdiag (length D) with ∇ log f(w) and diag ∇∇ᵀ log f(w)
// and returns log f(w).
func (p Potential) Derivs(w, grad, hdiag []float64) float64 {
	u := p.F(Vars(w[:p.D]))
	for j := 0; j < p.D; j++ {
		grad[j], hdiag[j] = 0, 0
		if u.G != nil {
			grad[j], hdiag[j] = u.G[j], u.H[j]
		}
	}
	return u.V
}
