package kernel

import (
	"fmt"
	"math"
)

// FromSpec builds a kernel from a kernel expression of the fg language
// (graph.KernelSpec, infer/learn.Kernel): the kind, its hyperparameters on
// their natural scale, in the registry's order, and for sum and prod the
// already-built terms. The mapping is
//
//	se(ℓ, σ²)              → SE{ℓ, σ²}          k = σ² exp(−|x−x'|²/(2ℓ²))
//	matern32(ℓ, σ²)        → Matern32{ℓ, σ²}
//	matern52(ℓ, σ²)        → Matern52{ℓ, σ²}
//	linear(ℓ)              → Linear{1/ℓ²}       k = xᵀx'/ℓ²
//	ard(ℓ_1, …, ℓ_D, σ²)   → ARD{ℓ, σ²}
//	bias(σ²)               → Bias{σ²}           k = σ²
//	white(σ²)              → White{σ²}          σ² on the Gram diagonal, 0 in cross matrices
//	sum, prod              → Sum(args), Prod(args)   (two or more terms)
//
// Lengthscales and the variances of se, matern and ard must be positive and
// finite. bias and white accept σ² = 0 (the language allows it): the result
// is the zero kernel Bias{0} / White{0}, whose log hyperparameter is −∞, so
// an optimiser must treat such a leaf by its unit-variance Gram matrix
// (as infer/learn does).
func FromSpec(kind Kind, hyper []float64, args ...Kernel) (Kernel, error) {
	if kind.Composite() {
		if len(hyper) != 0 || len(args) < 2 {
			return nil, fmt.Errorf("kernel: %s needs two or more terms and no hyperparameters, got %d terms and %d hyperparameters", kind, len(args), len(hyper))
		}
		ks := append([]Kernel(nil), args...)
		if kind == KindSum {
			return Sum(ks), nil
		}
		return Prod(ks), nil
	}
	if len(args) != 0 {
		return nil, fmt.Errorf("kernel: %s takes no sub-kernels", kind)
	}
	want := map[Kind]int{KindSE: 2, KindMatern32: 2, KindMatern52: 2, KindLinear: 1, KindBias: 1, KindWhite: 1}
	if n, ok := want[kind]; ok && len(hyper) != n {
		return nil, fmt.Errorf("kernel: %s has %d hyperparameters, want %d", kind, len(hyper), n)
	}
	switch kind {
	case KindBias, KindWhite:
		if !(hyper[0] >= 0) || math.IsInf(hyper[0], 0) {
			return nil, fmt.Errorf("kernel: %s variance must be finite and ≥ 0, got %g", kind, hyper[0])
		}
		if kind == KindBias {
			return Bias{hyper[0]}, nil
		}
		return White{hyper[0]}, nil
	case KindARD:
		if len(hyper) < 2 {
			return nil, fmt.Errorf("kernel: ard needs D ≥ 1 lengthscales and a variance, got %d hyperparameters", len(hyper))
		}
	case KindSE, KindMatern32, KindMatern52, KindLinear:
	default:
		return nil, fmt.Errorf("kernel: unknown kernel %s (have se, matern32, matern52, linear, ard, bias, white, sum, prod)", kind)
	}
	for _, h := range hyper {
		if !(h > 0) || math.IsInf(h, 0) {
			return nil, fmt.Errorf("kernel: %s with hyperparameters %v: values must be positive and finite", kind, hyper)
		}
	}
	switch kind {
	case KindSE:
		return SE{hyper[0], hyper[1]}, nil
	case KindMatern32:
		return Matern32{hyper[0], hyper[1]}, nil
	case KindMatern52:
		return Matern52{hyper[0], hyper[1]}, nil
	case KindLinear:
		return Linear{1 / (hyper[0] * hyper[0])}, nil
	}
	d := len(hyper) - 1
	return ARD{append([]float64(nil), hyper[:d]...), hyper[d]}, nil
}
