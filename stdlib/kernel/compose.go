package kernel

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Sum is k(x, y) = Σ_j k_j(x, y). Its hyperparameters are the concatenation
// of its terms' (names prefixed "j."), and ∂K/∂h of a term's hyperparameter
// is that term's gradient.
type Sum []Kernel

// Prod is k(x, y) = Π_j k_j(x, y). For a hyperparameter h of term j,
// ∂K/∂h = (∂K_j/∂h) ∘ Π_{l≠j} K_l (element-wise products of Gram matrices).
type Prod []Kernel

func (s Sum) Eval(x, y []float64) float64 {
	var v float64
	for _, k := range s {
		v += k.Eval(x, y)
	}
	return v
}

func (s Sum) Matrix(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	for _, k := range s {
		K.AddSym(K, k.Matrix(X))
	}
	return K
}

func (s Sum) Cross(X, Z *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	m, _ := Z.Dims()
	C := mat.NewDense(n, m, nil)
	for _, k := range s {
		C.Add(C, k.Cross(X, Z))
	}
	return C
}

func (s Sum) Grad(X *mat.Dense) []*mat.SymDense {
	var out []*mat.SymDense
	for _, k := range s {
		out = append(out, k.Grad(X)...)
	}
	return out
}

// matrixGrad is MatrixGrad of a sum: the terms' Gram matrices added in
// order, as Matrix does, and their gradients concatenated, as Grad does.
func (s Sum) matrixGrad(X *mat.Dense) (*mat.SymDense, []*mat.SymDense) {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	var out []*mat.SymDense
	for _, k := range s {
		Kk, g := MatrixGrad(k, X)
		K.AddSym(K, Kk)
		out = append(out, g...)
	}
	return K, out
}

func (s Sum) Hyper() []float64     { return concatHyper(s) }
func (s Sum) HyperNames() []string { return concatNames(s) }
func (s Sum) String() string       { return joinNames(s, " + ") }
func (s Sum) WithHyper(h []float64) (Kernel, error) {
	return splitHyper(s, h, func(ks []Kernel) Kernel { return Sum(ks) })
}

func (p Prod) Eval(x, y []float64) float64 {
	v := 1.0
	for _, k := range p {
		v *= k.Eval(x, y)
	}
	return v
}

func (p Prod) Matrix(X *mat.Dense) *mat.SymDense {
	mats := make([]*mat.SymDense, len(p))
	for j, k := range p {
		mats[j] = k.Matrix(X)
	}
	return productOf(X, mats)
}

// productOf is the element-wise product of the terms' Gram matrices over
// the rows of X, from a matrix of ones in the terms' order.
func productOf(X *mat.Dense, mats []*mat.SymDense) *mat.SymDense {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, 1)
		}
	}
	for _, m := range mats {
		hadamard(K, m)
	}
	return K
}

func (p Prod) Cross(X, Z *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	m, _ := Z.Dims()
	C := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			C.Set(i, j, 1)
		}
	}
	for _, k := range p {
		C.MulElem(C, k.Cross(X, Z))
	}
	return C
}

func (p Prod) Grad(X *mat.Dense) []*mat.SymDense {
	_, out := p.matrixGrad(X)
	return out
}

// matrixGrad is MatrixGrad of a product: K = Π_j K_j (as Matrix) and, for
// a hyperparameter of term j, (∂K_j/∂h) ∘ Π_{l≠j} K_l.
func (p Prod) matrixGrad(X *mat.Dense) (*mat.SymDense, []*mat.SymDense) {
	mats := make([]*mat.SymDense, len(p))
	grads := make([][]*mat.SymDense, len(p))
	for j, k := range p {
		mats[j], grads[j] = MatrixGrad(k, X)
	}
	K := productOf(X, mats)
	var out []*mat.SymDense
	for j := range p {
		for _, g := range grads[j] {
			for l, m := range mats {
				if l != j {
					hadamard(g, m)
				}
			}
			out = append(out, g)
		}
	}
	return K, out
}

func (p Prod) Hyper() []float64     { return concatHyper(p) }
func (p Prod) HyperNames() []string { return concatNames(p) }
func (p Prod) String() string       { return joinNames(p, " * ") }
func (p Prod) WithHyper(h []float64) (Kernel, error) {
	return splitHyper(p, h, func(ks []Kernel) Kernel { return Prod(ks) })
}

// hadamard sets a ← a ∘ b on the upper triangle.
func hadamard(a, b *mat.SymDense) {
	n := a.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, a.At(i, j)*b.At(i, j))
		}
	}
}

func concatHyper(ks []Kernel) []float64 {
	var h []float64
	for _, k := range ks {
		h = append(h, k.Hyper()...)
	}
	return h
}

func concatNames(ks []Kernel) []string {
	var names []string
	for j, k := range ks {
		for _, n := range k.HyperNames() {
			names = append(names, fmt.Sprintf("%d.%s", j, n))
		}
	}
	return names
}

func joinNames(ks []Kernel, sep string) string {
	parts := make([]string, len(ks))
	for j, k := range ks {
		parts[j] = "(" + k.String() + ")"
	}
	return strings.Join(parts, sep)
}

func splitHyper(ks []Kernel, h []float64, build func([]Kernel) Kernel) (Kernel, error) {
	out := make([]Kernel, len(ks))
	off := 0
	for j, k := range ks {
		p := len(k.Hyper())
		if off+p > len(h) {
			return nil, fmt.Errorf("kernel: %d hyperparameters given, want %d", len(h), len(concatHyper(ks)))
		}
		nk, err := k.WithHyper(h[off : off+p])
		if err != nil {
			return nil, err
		}
		out[j] = nk
		off += p
	}
	if off != len(h) {
		return nil, fmt.Errorf("kernel: %d hyperparameters given, want %d", len(h), off)
	}
	return build(out), nil
}

// FromGPML builds a kernel from a GPML covariance name and its log
// hyperparameter vector: "covSEiso" [log ell, log sf] → SE{ell, sf²};
// "covLINiso" [log ell] → Linear{1/ell²}; "covSEard" [log ell_1..D, log sf]
// → ARD; "covConst" [log sf] → Bias{sf²}; "covNoise" [log sn] → White{sn²}.
func FromGPML(name string, hyp []float64) (Kernel, error) {
	need := map[string]int{"covSEiso": 2, "covLINiso": 1, "covConst": 1, "covNoise": 1}
	if n, ok := need[name]; ok && len(hyp) != n {
		return nil, fmt.Errorf("kernel: %s takes %d hyperparameters, got %d", name, n, len(hyp))
	}
	switch name {
	case "covSEiso":
		return SE{math.Exp(hyp[0]), math.Exp(2 * hyp[1])}, nil
	case "covLINiso":
		return Linear{math.Exp(-2 * hyp[0])}, nil
	case "covConst":
		return Bias{math.Exp(2 * hyp[0])}, nil
	case "covNoise":
		return White{math.Exp(2 * hyp[0])}, nil
	case "covSEard":
		if len(hyp) < 2 {
			return nil, fmt.Errorf("kernel: covSEard needs D+1 hyperparameters")
		}
		ells := make([]float64, len(hyp)-1)
		for d := range ells {
			ells[d] = math.Exp(hyp[d])
		}
		return ARD{ells, math.Exp(2 * hyp[len(hyp)-1])}, nil
	}
	return nil, fmt.Errorf("kernel: unknown GPML covariance %q (have covSEiso, covSEard, covLINiso, covConst, covNoise)", name)
}
