package tep

import "gonum.org/v1/gonum/mat"

// cavity is an explicit cavity θ\j = (h, P) for the tests.
type cavity struct {
	P *mat.SymDense
	h []float64
}

// cavityOf forms θ\j = (1−cⱼ)θ − (eⱼg, dⱼggᵀ) as full matrices (tests only;
// the engine works with siteCavity's scalars). ok is false when P\j is not
// positive definite.
func (st *state) cavityOf(j int) (*cavity, bool) {
	if !st.valid {
		return nil, false
	}
	phi := (1 - st.c[j]) / st.gamma
	c := &cavity{P: mat.NewSymDense(st.k, nil), h: scaled(phi, st.b)}
	c.P.ScaleSym(phi, st.a)
	c.P.SymRankOne(c.P, -st.d[j], mat.NewVecDense(st.k, st.g[j]))
	axpy(-st.e[j], st.g[j], c.h)
	var ch mat.Cholesky
	return c, ch.Factorize(c.P)
}
