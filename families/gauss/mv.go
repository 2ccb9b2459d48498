package gauss

import "gonum.org/v1/gonum/mat"

// MV is a proper multivariate Gaussian in natural parameters (precision Λ,
// precision-mean h), held together with the Cholesky factor of Λ = LLᵀ so
// that means, variances, densities and the log-normaliser are computed with
// triangular solves, never with an explicit inverse. Products, quotients and
// powers that stay positive definite are again MVs; when they do not (an EP
// cavity with a negative direction), the constructors report ok = false.
type MV struct {
	prec *mat.SymDense
	h    []float64
	chol mat.Cholesky
}

// NewMV returns N(mean, cov); ok is false unless cov is positive definite and
// the dimensions agree.
func NewMV(mean []float64, cov *mat.SymDense) (MV, bool) {
	if cov == nil || cov.SymmetricDim() != len(mean) || !finite(mean...) {
		return MV{}, false
	}
	var cc mat.Cholesky
	if !cc.Factorize(cov) {
		return MV{}, false
	}
	d := len(mean)
	// Λ = Σ⁻¹ as a solve of Σ Λ = I; h = Λμ.
	I := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		I.Set(i, i, 1)
	}
	P := mat.NewDense(d, d, nil)
	if err := cc.SolveTo(P, I); err != nil {
		return MV{}, false
	}
	prec := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			prec.SetSym(i, j, 0.5*(P.At(i, j)+P.At(j, i)))
		}
	}
	h := mat.NewVecDense(d, nil)
	h.MulVec(prec, mat.NewVecDense(d, mean))
	return NewMVNatural(h.RawVector().Data, prec)
}

// NewMVNatural returns the Gaussian with precision prec and precision-mean h;
// ok is false unless prec is positive definite and the dimensions agree.
func NewMVNatural(h []float64, prec *mat.SymDense) (MV, bool) {
	if prec == nil || prec.SymmetricDim() != len(h) || !finite(h...) {
		return MV{}, false
	}
	g := MV{prec: mat.NewSymDense(len(h), nil), h: append([]float64(nil), h...)}
	g.prec.CopySym(prec)
	if !g.chol.Factorize(g.prec) {
		return MV{}, false
	}
	return g, true
}

// Dim returns the dimension.
func (g MV) Dim() int { return len(g.h) }

// Precision returns a copy of Λ.
func (g MV) Precision() *mat.SymDense {
	p := mat.NewSymDense(g.Dim(), nil)
	p.CopySym(g.prec)
	return p
}

// H returns a copy of h = Λμ.
func (g MV) H() []float64 { return append([]float64(nil), g.h...) }

// Mean returns μ = Λ⁻¹h by two triangular solves.
func (g MV) Mean() []float64 {
	m := mat.NewVecDense(g.Dim(), nil)
	_ = g.chol.SolveVecTo(m, mat.NewVecDense(g.Dim(), g.h))
	return m.RawVector().Data
}

// Cov returns Σ = Λ⁻¹, computed from the Cholesky factor.
func (g MV) Cov() *mat.SymDense {
	s := mat.NewSymDense(g.Dim(), nil)
	_ = g.chol.InverseTo(s)
	return s
}

// Var returns the marginal variances diag(Λ⁻¹): with Λ = UᵀU,
// Σ_ii = ‖U⁻ᵀ e_i‖², one triangular solve per coordinate.
func (g MV) Var() []float64 {
	d := g.Dim()
	out := make([]float64, d)
	e := mat.NewVecDense(d, nil)
	x := mat.NewVecDense(d, nil)
	var U mat.TriDense
	g.chol.UTo(&U)
	for i := 0; i < d; i++ {
		e.Zero()
		e.SetVec(i, 1)
		_ = x.SolveVec(U.T(), e)
		out[i] = mat.Dot(x, x)
	}
	return out
}

// Mul returns the product g·o (natural parameters add).
func (g MV) Mul(o MV) (MV, bool) { return g.combine(o, 1) }

// Div returns the quotient g/o; ok is false when Λ_g − Λ_o is not positive
// definite.
func (g MV) Div(o MV) (MV, bool) { return g.combine(o, -1) }

func (g MV) combine(o MV, s float64) (MV, bool) {
	if o.Dim() != g.Dim() {
		return MV{}, false
	}
	p := mat.NewSymDense(g.Dim(), nil)
	p.AddSym(g.prec, scaled(o.prec, s))
	h := make([]float64, g.Dim())
	for i := range h {
		h[i] = g.h[i] + s*o.h[i]
	}
	return NewMVNatural(h, p)
}

// Pow returns g^a for a > 0.
func (g MV) Pow(a float64) (MV, bool) {
	if !(a > 0) {
		return MV{}, false
	}
	h := make([]float64, g.Dim())
	for i := range h {
		h[i] = a * g.h[i]
	}
	return NewMVNatural(h, scaled(g.prec, a))
}

func scaled(p *mat.SymDense, a float64) *mat.SymDense {
	out := mat.NewSymDense(p.SymmetricDim(), nil)
	out.ScaleSym(a, p)
	return out
}

// LogNormalizer returns A = ½ hᵀΛ⁻¹h − ½ log|Λ| + (d/2) log 2π.
func (g MV) LogNormalizer() float64 {
	return 0.5*dot(g.h, g.Mean()) - 0.5*g.chol.LogDet() + 0.5*float64(g.Dim())*log2Pi
}

// LogPdf returns log N(x; μ, Λ⁻¹) = −½ xᵀΛx + hᵀx − A.
func (g MV) LogPdf(x []float64) float64 {
	v := mat.NewVecDense(len(x), x)
	return -0.5*mat.Inner(v, g.prec, v) + dot(g.h, x) - g.LogNormalizer()
}

// Marginal returns the univariate marginal of coordinate i.
func (g MV) Marginal(i int) Uni {
	u, _ := NewUni(g.Mean()[i], g.Var()[i])
	return u
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
