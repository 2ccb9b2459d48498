package testkit

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// CVChain is a near-constant-velocity chain as a linear-Gaussian
// state-space model over s_t = (x, y, ẋ, ẏ): s_0 ~ N(0, diag P0),
// s_t = A s_{t−1} + w_t with A the constant-velocity transition and w_t
// the velocity step a ~ N(0, Q) per axis carried into the position as a/2
// plus N(0, QB), and readings Y_t ~ N(Hᵀs_t, R). With precise steps and
// long runs its information matrix is ill-conditioned (κ(Λ) ~ T⁴, 10¹¹ at
// T = 900, Q = 10⁻³, R = 10⁶): the gold standard of the band solvers'
// precision, against KalmanBig.
type CVChain struct {
	Q, QB, R float64
	P0, H, Y []float64
}

// NewCVChain simulates (seeded) T steps of the chain with QB = Q/12,
// P0 = (1, 1, 0.01, 0.01) and readings of x − 0.5 y rounded to 10⁻³.
func NewCVChain(T int, q, r float64) CVChain {
	rng := rand.New(rand.NewPCG(5, 5))
	m := CVChain{Q: q, QB: q / 12, R: r, P0: []float64{1, 1, 0.01, 0.01}, H: []float64{1, -0.5, 0, 0}, Y: make([]float64, T)}
	x := make([]float64, 4)
	for t := 0; t < T; t++ {
		if t > 0 {
			a := []float64{math.Sqrt(q) * rng.NormFloat64(), math.Sqrt(q) * rng.NormFloat64()}
			x = []float64{x[0] + x[2] + a[0]/2, x[1] + x[3] + a[1]/2, x[2] + a[0], x[3] + a[1]}
		}
		m.Y[t] = math.Round((x[0]-0.5*x[1]+math.Sqrt(r)*rng.NormFloat64())*1e3) / 1e3
	}
	return m
}

// bigPrec is the mantissa of KalmanBig's floats: 256 bits against the
// 53 of float64, far beyond the ~40 bits a condition number of 10¹² takes.
const bigPrec = 256

type bmat [4][4]*big.Float

func bnew(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

func bzero() (m bmat) {
	for i := range m {
		for j := range m[i] {
			m[i][j] = bnew(0)
		}
	}
	return m
}

func bmul(a, b bmat) bmat {
	c := bzero()
	t := bnew(0)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			for l := 0; l < 4; l++ {
				c[i][j].Add(c[i][j], t.Mul(a[i][l], b[l][j]))
			}
		}
	}
	return c
}

func btrans(a bmat) bmat {
	c := bzero()
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			c[i][j].Set(a[j][i])
		}
	}
	return c
}

func badd(a, b bmat, sign float64) bmat {
	c := bzero()
	t := bnew(0)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			c[i][j].Add(a[i][j], t.Mul(bnew(sign), b[i][j]))
		}
	}
	return c
}

func bmatvec(a bmat, v [4]*big.Float) (out [4]*big.Float) {
	t := bnew(0)
	for i := 0; i < 4; i++ {
		out[i] = bnew(0)
		for j := 0; j < 4; j++ {
			out[i].Add(out[i], t.Mul(a[i][j], v[j]))
		}
	}
	return out
}

// bsolve returns X with P X = B (P symmetric positive definite) by
// Gaussian elimination without pivoting, in big floats.
func bsolve(p, b bmat) bmat {
	a, x := badd(p, bzero(), 1), badd(b, bzero(), 1)
	t, f := bnew(0), bnew(0)
	for c := 0; c < 4; c++ {
		for r := c + 1; r < 4; r++ {
			f.Quo(a[r][c], a[c][c])
			for j := 0; j < 4; j++ {
				a[r][j].Sub(a[r][j], t.Mul(f, a[c][j]))
				x[r][j].Sub(x[r][j], t.Mul(f, x[c][j]))
			}
		}
	}
	for c := 3; c >= 0; c-- {
		for j := 0; j < 4; j++ {
			for l := c + 1; l < 4; l++ {
				x[c][j].Sub(x[c][j], t.Mul(a[c][l], x[l][j]))
			}
			x[c][j].Quo(x[c][j], a[c][c])
		}
	}
	return x
}

// KalmanBig is the Kalman filter and Rauch–Tung–Striebel smoother of m in
// covariance form (Särkkä 2013, Theorems 4.2 and 8.2) in 256-bit floats:
// the smoothed means and variances of s_t's elements, time-major (s_t's
// element i at 4t + i), and log p(y) from the prediction errors (each
// innovation variance's log taken in float64 after rounding).
func (m CVChain) KalmanBig() (mean, vr []float64, logp float64) {
	T := len(m.Y)
	A := bzero()
	for i := 0; i < 4; i++ {
		A[i][i].SetFloat64(1)
	}
	A[0][2].SetFloat64(1)
	A[1][3].SetFloat64(1)
	Q := bzero()
	q, qb := bnew(m.Q), bnew(m.QB)
	for ax := 0; ax < 2; ax++ {
		Q[ax][ax].Add(new(big.Float).SetPrec(bigPrec).Mul(bnew(0.25), q), qb)
		Q[ax][ax+2].Mul(bnew(0.5), q)
		Q[ax+2][ax].Set(Q[ax][ax+2])
		Q[ax+2][ax+2].Set(q)
	}
	var h [4]*big.Float
	for i := range h {
		h[i] = bnew(m.H[i])
	}
	mf, Pf := make([][4]*big.Float, T), make([]bmat, T)
	mp, Pp := make([][4]*big.Float, T), make([]bmat, T)
	var mc [4]*big.Float
	Pc := bzero()
	for i := range mc {
		mc[i] = bnew(0)
		Pc[i][i].SetFloat64(m.P0[i])
	}
	t1, t2 := bnew(0), bnew(0)
	for t := 0; t < T; t++ {
		if t > 0 {
			mc = bmatvec(A, mc)
			Pc = badd(bmul(bmul(A, Pc), btrans(A)), Q, 1)
		}
		mp[t], Pp[t] = mc, Pc
		var ph [4]*big.Float // P h
		S := bnew(m.R)
		e := bnew(m.Y[t])
		for i := 0; i < 4; i++ {
			ph[i] = bnew(0)
			for j := 0; j < 4; j++ {
				ph[i].Add(ph[i], t1.Mul(Pc[i][j], h[j]))
			}
			S.Add(S, t1.Mul(h[i], ph[i]))
			e.Sub(e, t1.Mul(h[i], mc[i]))
		}
		sf, _ := S.Float64()
		ef, _ := t2.Quo(t1.Mul(e, e), S).Float64()
		logp += -0.5 * (math.Log(2*math.Pi*sf) + ef)
		var mn [4]*big.Float
		Pn := bzero()
		for i := 0; i < 4; i++ {
			mn[i] = new(big.Float).SetPrec(bigPrec).Add(mc[i], t1.Quo(t2.Mul(ph[i], e), S))
			for j := 0; j < 4; j++ {
				Pn[i][j].Sub(Pc[i][j], t1.Quo(t2.Mul(ph[i], ph[j]), S))
			}
		}
		mc, Pc = mn, Pn
		mf[t], Pf[t] = mc, Pc
	}
	mean, vr = make([]float64, 4*T), make([]float64, 4*T)
	ms, Ps := mf[T-1], Pf[T-1]
	for t := T - 1; t >= 0; t-- {
		if t < T-1 {
			G := btrans(bsolve(Pp[t+1], bmul(A, Pf[t]))) // Pf Aᵀ Pp⁻¹
			var dm [4]*big.Float
			for i := range dm {
				dm[i] = new(big.Float).SetPrec(bigPrec).Sub(ms[i], mp[t+1][i])
			}
			gd := bmatvec(G, dm)
			for i := range gd {
				gd[i].Add(gd[i], mf[t][i])
			}
			ms = gd
			Ps = badd(Pf[t], bmul(bmul(G, badd(Ps, Pp[t+1], -1)), btrans(G)), 1)
		}
		for i := 0; i < 4; i++ {
			mean[4*t+i], _ = ms[i].Float64()
			vr[4*t+i], _ = Ps[i][i].Float64()
		}
	}
	return mean, vr, logp
}
