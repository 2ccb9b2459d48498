package graph

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/stdlib/ad"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// KernelSpec is a kernel expression with its hyperparameters resolved:
// Kind is a leaf kernel (se, linear, ard, matern32, matern52, bias, white)
// or a sum or product of Args; Hyper are its numeric hyperparameters in stdlib order;
// HyperParams names the param (if any) each hyperparameter came from, so
// `learn` can map params to kernel hyperparameters; Args are sub-kernels.
type KernelSpec struct {
	Kind        kernel.Kind
	Hyper       []float64
	HyperParams []string
	Args        []KernelSpec
	// Jets are the hyperparameters' jets in the learned params when the
	// kernel was evaluated differentiating (compile's learning; NaN where
	// one has none), nil otherwise.
	Jets []ad.Jet
}

// Kernel returns the stdlib/kernel covariance function of the expression,
// built by kernel.FromSpec leaf by leaf (the one conversion from the
// language's natural-scale hyperparameters: linear(ℓ) is xᵀx'/ℓ², white(σ²)
// is σ² on the Gram diagonal and 0 between distinct point sets, bias and
// white accept σ² = 0). It fails only for a spec compile would not produce
// (unknown kind, wrong hyperparameter count, non-positive lengthscale).
func (k *KernelSpec) Kernel() (kernel.Kernel, error) {
	var args []kernel.Kernel
	for i := range k.Args {
		a, err := k.Args[i].Kernel()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return kernel.FromSpec(k.Kind, k.Hyper, args...)
}

// Eval returns k(x, y) for two input rows; same says whether they are the
// same point (white noise contributes its variance only then). It is the
// 1×1 Gram matrix of x when same, else the 1×1 cross matrix of x and y;
// NaN for an invalid spec (see Kernel).
func (k *KernelSpec) Eval(x, y []float64, same bool) float64 {
	kk, err := k.Kernel()
	if err != nil {
		return math.NaN()
	}
	X := mat.NewDense(1, len(x), append([]float64(nil), x...))
	if same {
		return kk.Matrix(X).At(0, 0)
	}
	return kk.Cross(X, mat.NewDense(1, len(y), append([]float64(nil), y...))).At(0, 0)
}

// Gram returns K[i, j] = k(X[i], X[j]) (white noise on the diagonal);
// every entry is NaN for an invalid spec (see Kernel).
func (k *KernelSpec) Gram(X *mat.Dense) *mat.SymDense {
	kk, err := k.Kernel()
	if err != nil {
		n, _ := X.Dims()
		return mat.NewSymDense(n, nanSlice(n*n))
	}
	return kk.Matrix(X)
}

// Cross returns K[i, j] = k(A[i], B[j]) (white noise contributes nothing
// between distinct point sets); every entry is NaN for an invalid spec.
func (k *KernelSpec) Cross(A, B *mat.Dense) *mat.Dense {
	kk, err := k.Kernel()
	if err != nil {
		na, _ := A.Dims()
		nb, _ := B.Dims()
		return mat.NewDense(na, nb, nanSlice(na*nb))
	}
	return kk.Cross(A, B)
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
