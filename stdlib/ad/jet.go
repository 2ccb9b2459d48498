// Package ad is forward-mode automatic differentiation for scalar functions
// of a vector w ∈ R^d, carrying the value, the full gradient and the DIAGONAL
// of the Hessian. That is exactly what the numerical moment schemes of the
// fully factorised EP family need (Laplace and quick Laplace expand log f to
// second order with diag(∇∇ᵀ log f), roche-numerical-ep.txt eq. 6).
//
// A Jet u over d inputs holds
//
//	V = u(w),  G_j = ∂u/∂w_j,  H_j = ∂²u/∂w_j²   (j = 1..d).
//
// Diagonal second derivatives propagate EXACTLY through every operation,
// without the off-diagonal Hessian, because each is a second derivative along
// one coordinate only:
//
//	univariate g(u):  H_j(g∘u) = g''(u) G_j(u)² + g'(u) H_j(u)
//	product u·v:      H_j(uv)  = H_j(u) v + 2 G_j(u) G_j(v) + u H_j(v)
//	sum u + v:        H_j(u+v) = H_j(u) + H_j(v)
//
// so a sum of functions of projections, Σ_k ℓ(x_kᵀw), gets its cross terms
// right: H_j = Σ_k ℓ”(x_kᵀw) x_kj².
//
// Kinks. At a point where a piecewise function is not differentiable (|u| at
// 0, max(u, v) at u = v, the hinge at its corner) the derivative is defined
// as the half sum of the one-sided limits, the convention of Roche (§3.2 of
// roche-numerical-ep.txt); the second derivative there is the half sum of
// the one-sided second derivatives (the Dirac mass is dropped).
//
// Jets with nil G and H are constants; the operations treat nil as zero and
// return nil when both operands are constant. Evaluating a function on
// constant jets (see Consts) therefore computes the value only, at the cost
// of plain float arithmetic plus a little bookkeeping.
package ad

import "math"

// Jet is a value with its gradient and diagonal Hessian over d inputs.
// G and H are either both nil (a constant) or both of length d.
type Jet struct {
	V float64
	G []float64
	H []float64
}

// Var returns the i-th of d independent variables at value x:
// G = e_i, H = 0.
func Var(i, d int, x float64) Jet {
	g := make([]float64, d)
	g[i] = 1
	return Jet{V: x, G: g, H: make([]float64, d)}
}

// Vars returns the d = len(x) independent variables w_j = x_j.
func Vars(x []float64) []Jet {
	d := len(x)
	out := make([]Jet, d)
	for i, v := range x {
		out[i] = Var(i, d, v)
	}
	return out
}

// Const returns the constant c (no derivatives).
func Const(c float64) Jet { return Jet{V: c} }

// Consts returns the values x as constant jets: evaluating a function on them
// gives its value without derivative work.
func Consts(x []float64) []Jet {
	out := make([]Jet, len(x))
	for i, v := range x {
		out[i] = Jet{V: v}
	}
	return out
}

// IsConst reports whether u carries no derivatives.
func (u Jet) IsConst() bool { return u.G == nil }

// Dim is the number of inputs of u (0 for a constant).
func (u Jet) Dim() int { return len(u.G) }

// Chain applies a univariate function g at u given its value f = g(u.V) and
// derivatives f1 = g'(u.V), f2 = g”(u.V):
//
//	G_j = f1 G_j(u),  H_j = f2 G_j(u)² + f1 H_j(u).
func Chain(u Jet, f, f1, f2 float64) Jet {
	if u.G == nil {
		return Jet{V: f}
	}
	d := len(u.G)
	g := make([]float64, d)
	h := make([]float64, d)
	for j, gj := range u.G {
		g[j] = f1 * gj
		h[j] = f2*gj*gj + f1*u.H[j]
	}
	return Jet{V: f, G: g, H: h}
}

// lin returns a·u + b·v + c (value, gradient and Hessian are all linear).
func lin(a float64, u Jet, b float64, v Jet, c float64) Jet {
	out := Jet{V: a*u.V + b*v.V + c}
	d := max(len(u.G), len(v.G))
	if d == 0 {
		return out
	}
	out.G = make([]float64, d)
	out.H = make([]float64, d)
	if u.G != nil {
		for j := range u.G {
			out.G[j] = a * u.G[j]
			out.H[j] = a * u.H[j]
		}
	}
	if v.G != nil {
		for j := range v.G {
			out.G[j] += b * v.G[j]
			out.H[j] += b * v.H[j]
		}
	}
	return out
}

// Add returns u + v.
func (u Jet) Add(v Jet) Jet { return lin(1, u, 1, v, 0) }

// Sub returns u − v.
func (u Jet) Sub(v Jet) Jet { return lin(1, u, -1, v, 0) }

// Neg returns −u.
func (u Jet) Neg() Jet { return lin(-1, u, 0, Jet{}, 0) }

// Scale returns c·u.
func (u Jet) Scale(c float64) Jet { return lin(c, u, 0, Jet{}, 0) }

// AddConst returns u + c.
func (u Jet) AddConst(c float64) Jet { return lin(1, u, 0, Jet{}, c) }

// Mul returns u·v with H_j(uv) = H_j(u) v + 2 G_j(u) G_j(v) + u H_j(v).
func (u Jet) Mul(v Jet) Jet {
	switch {
	case u.G == nil:
		return v.Scale(u.V)
	case v.G == nil:
		return u.Scale(v.V)
	}
	d := len(u.G)
	g := make([]float64, d)
	h := make([]float64, d)
	for j := range g {
		g[j] = u.G[j]*v.V + u.V*v.G[j]
		h[j] = u.H[j]*v.V + 2*u.G[j]*v.G[j] + u.V*v.H[j]
	}
	return Jet{V: u.V * v.V, G: g, H: h}
}

// Recip returns 1/u: g' = −1/u², g” = 2/u³. At u = 0 the result is ±Inf or NaN.
func (u Jet) Recip() Jet {
	r := 1 / u.V
	return Chain(u, r, -r*r, 2*r*r*r)
}

// Div returns u/v = u·(1/v).
func (u Jet) Div(v Jet) Jet {
	if v.G == nil {
		return u.Scale(1 / v.V)
	}
	return u.Mul(v.Recip())
}

// Pow returns u^p for a constant exponent p: g' = p u^{p−1}, g” = p(p−1) u^{p−2}.
// Integer p are exact for negative u; non-integer p need u > 0.
func (u Jet) Pow(p float64) Jet {
	switch p {
	case 0:
		return Const(1)
	case 1:
		return u
	case 2:
		return u.Mul(u)
	}
	return Chain(u, math.Pow(u.V, p), p*math.Pow(u.V, p-1), p*(p-1)*math.Pow(u.V, p-2))
}

// Exp returns e^u.
func (u Jet) Exp() Jet {
	e := math.Exp(u.V)
	return Chain(u, e, e, e)
}

// Log returns log u: g' = 1/u, g” = −1/u².
func (u Jet) Log() Jet {
	r := 1 / u.V
	return Chain(u, math.Log(u.V), r, -r*r)
}

// Sqrt returns √u: g' = 1/(2√u), g” = −1/(4 u^{3/2}).
func (u Jet) Sqrt() Jet {
	s := math.Sqrt(u.V)
	return Chain(u, s, 0.5/s, -0.25/(s*u.V))
}

// Abs returns |u|. At u = 0 the derivative is the half sum of the one-sided
// limits −1 and +1, i.e. 0.
func (u Jet) Abs() Jet {
	switch {
	case u.V > 0:
		return u
	case u.V < 0:
		return u.Neg()
	}
	return Chain(u, 0, 0, 0)
}

// Log1pExp returns the softplus log(1 + e^u), computed stably as
// max(u, 0) + log1p(e^{−|u|}); g' = σ(u), g” = σ(u) σ(−u) with σ the logistic
// function.
func (u Jet) Log1pExp() Jet {
	v := Softplus(u.V)
	s := Sigmoid(u.V)
	return Chain(u, v, s, s*Sigmoid(-u.V))
}

// Max returns max(u, v); at a tie the derivatives are the half sums
// ½(G(u) + G(v)), ½(H(u) + H(v)).
func Max(u, v Jet) Jet {
	switch {
	case u.V > v.V:
		return u
	case v.V > u.V:
		return v
	}
	return lin(0.5, u, 0.5, v, 0)
}

// Min returns min(u, v); at a tie the half sums as in Max.
func Min(u, v Jet) Jet {
	switch {
	case u.V < v.V:
		return u
	case v.V < u.V:
		return v
	}
	return lin(0.5, u, 0.5, v, 0)
}

// Softplus returns log(1 + e^x) without overflow or cancellation.
func Softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// Sigmoid returns σ(x) = 1/(1 + e^{−x}) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
