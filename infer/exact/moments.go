package exact

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// uMoments are the normalised moments in the integrator's coordinates u
// and their propagated error estimates.
type uMoments struct {
	logZ, dLogZ float64
	mean, dMean []float64
	cov, dCov   [][]float64
	errMax      float64
}

// moments turns the integrals I0 = ∫f, I1 = ∫f u, I2 = ∫f u uᵀ and their
// error bounds E into log Z = shift + log I0, mean μ = I1/I0,
// covariance C = I2/I0 − μ μᵀ, with first-order error bounds
//
//	δlog Z = E0/I0,  δμ_i = (E1_i + |μ_i| E0)/I0,
//	δM_ij = (E2_ij + |M_ij| E0)/I0,  δC_ij = δM_ij + |μ_i| δμ_j + |μ_j| δμ_i,
//
// where M = I2/I0. errMax is the largest of δlog Z, δμ_i/√C_ii and
// δC_ij/√(C_ii C_jj).
func (it *integrator) moments() uMoments {
	d := it.d
	i0, e0 := it.total[0], it.totalErr[0]
	m := uMoments{
		logZ: it.shift + math.Log(i0), dLogZ: e0 / i0,
		mean: make([]float64, d), dMean: make([]float64, d),
		cov: square(d), dCov: square(d),
	}
	for i := 0; i < d; i++ {
		m.mean[i] = it.total[1+i] / i0
		m.dMean[i] = (it.totalErr[1+i] + math.Abs(m.mean[i])*e0) / i0
	}
	p := 1 + d
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			mij := it.total[p] / i0
			dm := (it.totalErr[p] + math.Abs(mij)*e0) / i0
			c := mij - m.mean[i]*m.mean[j]
			dc := dm + math.Abs(m.mean[i])*m.dMean[j] + math.Abs(m.mean[j])*m.dMean[i]
			m.cov[i][j], m.cov[j][i] = c, c
			m.dCov[i][j], m.dCov[j][i] = dc, dc
			p++
		}
	}
	m.errMax = m.dLogZ
	for i := 0; i < d; i++ {
		si := math.Sqrt(math.Max(m.cov[i][i], 0))
		m.errMax = math.Max(m.errMax, m.dMean[i]/si)
		for j := 0; j < d; j++ {
			sj := math.Sqrt(math.Max(m.cov[j][j], 0))
			m.errMax = math.Max(m.errMax, m.dCov[i][j]/(si*sj))
		}
	}
	if math.IsNaN(m.errMax) {
		m.errMax = math.Inf(1)
	}
	return m
}

func square(d int) [][]float64 {
	s := make([][]float64, d)
	for i := range s {
		s[i] = make([]float64, d)
	}
	return s
}

// toResult maps the u-moments to w through the integrator's frame and fills
// the estimates and their errors:
//
//	mean_w = c + L μ,  Cov_w = L C Lᵀ,  δmean_w,i = Σ_j |L_ij| δμ_j,
//	δVar_w,i = Σ_jk |L_ij| |L_ik| δC_jk.
func (it *integrator) toResult(res *Result, m uMoments) {
	d := it.d
	cu := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			cu.SetSym(i, j, m.cov[i][j])
		}
	}
	res.Mean, res.Cov = it.fr.momentsToW(m.mean, cu)
	res.Var = make([]float64, d)
	res.MeanErr = make([]float64, d)
	res.VarErr = make([]float64, d)
	l := it.fr.l
	for i := 0; i < d; i++ {
		res.Var[i] = res.Cov.At(i, i)
		for j := 0; j < d; j++ {
			lij := math.Abs(l[i*d+j])
			res.MeanErr[i] += lij * m.dMean[j]
			for k := 0; k < d; k++ {
				res.VarErr[i] += lij * math.Abs(l[i*d+k]) * m.dCov[j][k]
			}
		}
	}
	res.LogZ, res.LogZErr, res.ErrEstimate = m.logZ, m.dLogZ, m.errMax
	res.Evaluations += it.evals
}
