package ep

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// GradLogZ returns ∂ log Z_EP/∂θ_j for prior-covariance derivatives
// dK[j] = ∂K/∂θ_j (e.g. from stdlib/kernel's Grad), at the converged sites:
//
//	∂ log Z_EP/∂θ = ½ tr((α αᵀ − S B⁻¹ S) ∂K/∂θ),   α = ν̃ − T μ = K⁻¹(μ − m0),
//
// (Rasmussen & Williams eq. 5.27 / GPML infEP's dnlZ.cov, sign flipped; at an
// EP fixed point the site parameters' own variation drops out). Only the GP
// case (one site per coordinate, A = I) and KL results with an evidence are
// supported; the prior mean is treated as fixed.
func (r *Result) GradLogZ(dK []*mat.SymDense) ([]float64, error) {
	if (r.bf == nil && r.ws == nil) || !r.HasLogZ {
		return nil, errors.New("ep: GradLogZ needs a converged result with log Z_EP")
	}
	if !r.pr.identity || r.ws != nil {
		return nil, errors.New("ep: GradLogZ supports the GP case (one site per coordinate) only")
	}
	m := len(r.alpha)
	I := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		I.Set(i, i, 1)
	}
	P, Q := r.bf.quadForm(I) // PᵀQ = S B⁻¹ S
	var W mat.Dense
	W.Mul(P.T(), Q)
	out := make([]float64, len(dK))
	for j, d := range dK {
		if d.SymmetricDim() != m {
			return nil, fmt.Errorf("ep: dK[%d] is %d×%d, want %d×%d", j, d.SymmetricDim(), d.SymmetricDim(), m, m)
		}
		var s float64
		for a := 0; a < m; a++ {
			for b := 0; b < m; b++ {
				s += (r.alpha[a]*r.alpha[b] - W.At(a, b)) * d.At(a, b)
			}
		}
		out[j] = 0.5 * s
	}
	return out, nil
}
