package learn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/stdlib/kernel"
)

// Kernel is a kernel expression as plain values, in the conventions of the
// fg language (graph.KernelSpec without its param names): Kind is se,
// matern32, matern52 (Hyper = [ℓ, σ²]), linear (Hyper = [ℓ],
// k = xᵀx'/ℓ²), ard (Hyper = [ℓ_1, …, ℓ_D, σ²]), bias, white
// (Hyper = [σ²], σ² ≥ 0), sum or prod (two or more Args). Hyper are
// on their natural (not log) scale.
//
// The mapping to stdlib/kernel (kernel.FromSpec), whose hyperparameters are
// logs h of its own fields, is
//
//	se(ℓ, σ²)        → SE{ℓ, σ²},       h = (log ℓ, log σ²)
//	matern32/52      → Matern32/52{ℓ, σ²}
//	linear(ℓ)        → Linear{1/ℓ²},    h = −2 log ℓ
//	ard(ℓ_1..D, σ²)  → ARD{ℓ, σ²}
//	bias(σ²), white(σ²) → Bias{σ²}, White{σ²} (Gram 0 when σ² = 0)
//
// and Grads converts stdlib's ∂K/∂h to the natural scale by the chain rule
// ∂K/∂θ = (∂K/∂h)(dh/dθ): dh/dθ = 1/θ, and −2/ℓ for linear.
type Kernel struct {
	Kind  kernel.Kind
	Hyper []float64
	Args  []Kernel
}

// NumHyper is the number of hyperparameters of the expression: the leaves'
// Hyper concatenated in depth-first order.
func (k Kernel) NumHyper() int {
	if k.Kind.Composite() {
		n := 0
		for _, a := range k.Args {
			n += a.NumHyper()
		}
		return n
	}
	return len(k.Hyper)
}

// Flat returns every hyperparameter in the order of NumHyper and Grads.
func (k Kernel) Flat() []float64 {
	if k.Kind.Composite() {
		var out []float64
		for _, a := range k.Args {
			out = append(out, a.Flat()...)
		}
		return out
	}
	return append([]float64(nil), k.Hyper...)
}

// Stdlib returns the stdlib/kernel kernel of a leaf or a composite
// expression, built by kernel.FromSpec (the conversion compile uses too).
// A zero-variance bias or white leaf is the zero kernel, whose log
// hyperparameter is −∞; Gram and Grads use its unit-variance matrix instead.
func (k Kernel) Stdlib() (kernel.Kernel, error) {
	var args []kernel.Kernel
	if k.Kind.Composite() {
		for _, a := range k.Args {
			s, err := a.Stdlib()
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
	}
	s, err := kernel.FromSpec(k.Kind, k.Hyper, args...)
	if err != nil {
		return nil, fmt.Errorf("learn: %w", err)
	}
	return s, nil
}

// unitVariance reports whether k is a bias or white leaf, whose Gram matrix
// is σ² times a fixed matrix (so ∂K/∂σ² is that matrix, also at σ² = 0).
func (k Kernel) unitVariance() (kernel.Kernel, bool) {
	switch k.Kind {
	case kernel.KindBias:
		return kernel.Bias{Var: 1}, true
	case kernel.KindWhite:
		return kernel.White{Var: 1}, true
	}
	return nil, false
}

// Gram returns K_ij = k(x_i, x_j) over the rows of X.
func (k Kernel) Gram(X *mat.Dense) (*mat.SymDense, error) {
	n, _ := X.Dims()
	if k.Kind.Composite() {
		return k.combine(X, nil)
	}
	if u, ok := k.unitVariance(); ok && len(k.Hyper) == 1 && k.Hyper[0] >= 0 {
		K := mat.NewSymDense(n, nil)
		K.ScaleSym(k.Hyper[0], u.Matrix(X))
		return K, nil
	}
	s, err := k.Stdlib()
	if err != nil {
		return nil, err
	}
	return s.Matrix(X), nil
}

// combine returns the Gram matrix of a sum or product, and when grads is
// non-nil appends ∂K/∂θ for every leaf hyperparameter.
func (k Kernel) combine(X *mat.Dense, grads *[]*mat.SymDense) (*mat.SymDense, error) {
	if len(k.Args) < 2 {
		return nil, fmt.Errorf("learn: %s kernel needs two or more terms", k.Kind)
	}
	grams := make([]*mat.SymDense, len(k.Args))
	argGrads := make([][]*mat.SymDense, len(k.Args))
	for i, a := range k.Args {
		var err error
		if grads == nil {
			grams[i], err = a.Gram(X)
		} else {
			grams[i], argGrads[i], err = a.GramGrads(X)
		}
		if err != nil {
			return nil, err
		}
	}
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	if k.Kind == kernel.KindSum {
		for _, g := range grams {
			K.AddSym(K, g)
		}
	} else {
		K.CopySym(grams[0])
		for _, g := range grams[1:] {
			hadamard(K, g)
		}
	}
	if grads == nil {
		return K, nil
	}
	for i, ga := range argGrads {
		if k.Kind == kernel.KindProd {
			for _, g := range ga {
				for j, o := range grams {
					if j != i {
						hadamard(g, o)
					}
				}
			}
		}
		*grads = append(*grads, ga...)
	}
	return K, nil
}

// Grads returns ∂K/∂θ_j over the rows of X for every hyperparameter θ_j on
// its natural scale, in the order of Flat. For a product k = Π_l k_l a
// hyperparameter of term l has ∂K/∂θ = (∂K_l/∂θ) ∘ Π_{m≠l} K_m.
func (k Kernel) Grads(X *mat.Dense) ([]*mat.SymDense, error) {
	_, g, err := k.GramGrads(X)
	return g, err
}

// GramGrads returns Gram(X) and Grads(X) together, evaluating each pair of
// rows once for both (kernel.MatrixGrad): one exponential per pair for se,
// where the two calls take two. The Gram matrix is Gram's, bit for bit.
func (k Kernel) GramGrads(X *mat.Dense) (*mat.SymDense, []*mat.SymDense, error) {
	return k.GramGradsDist(X, nil, nil)
}

// GramGradsDist is GramGrads with the squared distances between the rows
// of X read from d (kernel.MatrixGradDist; nil: computed), for evaluations
// at many values of the hyperparameters on the same inputs, written over
// reuse's matrices when it is non-nil (an earlier evaluation's results
// that are no longer used). Sums and products evaluate their terms
// without d and reuse.
func (k Kernel) GramGradsDist(X *mat.Dense, d *kernel.Distances, reuse *kernel.GramGrad) (*mat.SymDense, []*mat.SymDense, error) {
	if k.Kind.Composite() {
		var out []*mat.SymDense
		K, err := k.combine(X, &out)
		return K, out, err
	}
	if u, ok := k.unitVariance(); ok {
		K, err := k.Gram(X)
		if err != nil {
			return nil, nil, err
		}
		return K, []*mat.SymDense{u.Matrix(X)}, nil
	}
	s, err := k.Stdlib()
	if err != nil {
		return nil, nil, err
	}
	K, g := kernel.MatrixGradDist(s, X, d, reuse)
	for j, th := range k.Hyper {
		dh := 1 / th // h = log θ
		if k.Kind == kernel.KindLinear {
			dh = -2 / th // h = log(1/ℓ²)
		}
		g[j].ScaleSym(dh, g[j])
	}
	return K, g, nil
}

// hadamard sets a ← a ∘ b.
func hadamard(a, b *mat.SymDense) {
	n := a.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, a.At(i, j)*b.At(i, j))
		}
	}
}
