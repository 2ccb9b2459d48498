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
// inputs, and written over the storage of earlier results; distances of
// other inputs are not used.
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
			K, G := MatrixGradDist(k, x, d, nil)
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
			// Over the storage of another kernel's results: the same numbers.
			old := &GramGrad{K: mat.NewSymDense(9, nil), Grads: []*mat.SymDense{mat.NewSymDense(9, nil), mat.NewSymDense(9, nil)}}
			old.K.SetSym(0, 1, 7)
			old.Grads[1].SetSym(2, 2, -3)
			K2, G2 := MatrixGradDist(k, x, d, old)
			if !mat.Equal(K2, wantK) || len(G2) != len(wantG) {
				t.Fatalf("%v: MatrixGradDist over reused storage differs from MatrixGrad", k)
			}
			for j := range G2 {
				if !mat.Equal(G2[j], wantG[j]) {
					t.Errorf("%v: MatrixGradDist over reused storage: ∂K/∂%s differs", k, k.HyperNames()[j])
				}
			}
		}
	}
}
