package kernel

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMatrixGradDistAsMatrixGrad: with the squared distances computed once
// (NewDistances), MatrixGradDist's Gram matrix and derivatives equal
// MatrixGrad's bit for bit for every kernel (se, matern32 and matern52 from
// the distances, the others through MatrixGrad), also at hyperparameters
// other than those the distances were computed with, and for a copy of the
// inputs; distances of other inputs are not used.
func TestMatrixGradDistAsMatrixGrad(t *testing.T) {
	X := randX(9, 3, 4)
	d := NewDistances(X)
	same := mat.DenseCopyOf(X)
	other := randX(9, 3, 5)
	if !d.Of(X) || !d.Of(same) || d.Of(other) || (*Distances)(nil).Of(X) {
		t.Fatal("Distances.Of does not tell the inputs apart")
	}
	kernels := append(all(), SE{0.3, 2.5}, Matern32{2.1, 0.4}, Matern52{0.7, 1.3})
	for _, k := range kernels {
		for _, x := range []*mat.Dense{X, same, other} {
			K, G := MatrixGradDist(k, x, d)
			wantK, wantG := MatrixGrad(k, x)
			if !mat.Equal(K, wantK) {
				t.Errorf("%v: MatrixGradDist's Gram matrix differs from MatrixGrad's", k)
			}
			if len(G) != len(wantG) {
				t.Fatalf("%v: %d gradients, MatrixGrad has %d", k, len(G), len(wantG))
			}
			for j := range G {
				if !mat.Equal(G[j], wantG[j]) {
					t.Errorf("%v: MatrixGradDist's ∂K/∂%s differs from MatrixGrad's", k, k.HyperNames()[j])
				}
			}
		}
	}
}
