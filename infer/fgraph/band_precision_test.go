package fgraph

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// cvGauss is cvProbit's near-constant-velocity chain (a 2-D target whose
// velocity changes by N(0, q) a step, position given the velocities by
// N(0, q/12), written as scalar conditionals) with the tripwire labels
// replaced by readings of x − 0.5 y with variance r, simulated (seeded),
// and the same chain as a state-space model for kalmanBig.
func cvGauss(T int, q, r float64) (*Graph, ssm) {
	rng := rand.New(rand.NewPCG(5, 5))
	g := NewGraph(4 * T)
	m := ssm{q: q, qb: q / 12, r: r, p0: []float64{1, 1, 0.01, 0.01}, h: []float64{1, -0.5, 0, 0}, y: make([]float64, T)}
	for i, p0 := range m.p0 {
		g.AddGaussian([]int{i}, []float64{1}, 0, 0, p0)
	}
	x := make([]float64, 4)
	for t := 0; t < T; t++ {
		if t > 0 {
			for ax := 0; ax < 2; ax++ {
				p, v, np, nv := 4*(t-1)+ax, 4*(t-1)+2+ax, 4*t+ax, 4*t+2+ax
				g.AddGaussian([]int{nv, v}, []float64{1, -1}, 0, 0, m.q)
				g.AddGaussian([]int{np, p, v, nv}, []float64{1, -1, -0.5, -0.5}, 0, 0, m.qb)
			}
			a := []float64{math.Sqrt(q) * rng.NormFloat64(), math.Sqrt(q) * rng.NormFloat64()}
			x = []float64{x[0] + x[2] + a[0]/2, x[1] + x[3] + a[1]/2, x[2] + a[0], x[3] + a[1]}
		}
		m.y[t] = math.Round((x[0]-0.5*x[1]+math.Sqrt(r)*rng.NormFloat64())*1e3) / 1e3
		g.AddGaussian([]int{4 * t, 4*t + 1}, []float64{1, -0.5}, 0, m.y[t], r)
	}
	return g, m
}

// ssm is cvGauss's chain as a linear-Gaussian state-space model over
// s_t = (x, y, ẋ, ẏ): s_0 ~ N(0, diag p0), s_t = A s_{t−1} + w_t with A
// the constant-velocity transition and w_t the velocity step a ~ N(0, q)
// per axis carried into the position as a/2 plus N(0, qb), and readings
// y_t ~ N(hᵀs_t, r).
type ssm struct {
	q, qb, r float64
	p0, h, y []float64
}

// bigPrec is the mantissa of kalmanBig's floats: 256 bits against the
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

// kalmanBig is the Kalman filter and Rauch–Tung–Striebel smoother of m in
// covariance form (Särkkä 2013, Theorems 4.2 and 8.2) in 256-bit floats:
// the smoothed means and variances of s_t's elements, in cvGauss's
// variable order, and log p(y) from the prediction errors (each
// innovation variance's log taken in float64 after rounding).
func kalmanBig(m ssm) (mean, vr []float64, logp float64) {
	T := len(m.y)
	A := bzero()
	for i := 0; i < 4; i++ {
		A[i][i].SetFloat64(1)
	}
	A[0][2].SetFloat64(1)
	A[1][3].SetFloat64(1)
	Q := bzero()
	q, qb := bnew(m.q), bnew(m.qb)
	for ax := 0; ax < 2; ax++ {
		Q[ax][ax].Add(new(big.Float).SetPrec(bigPrec).Mul(bnew(0.25), q), qb)
		Q[ax][ax+2].Mul(bnew(0.5), q)
		Q[ax+2][ax].Set(Q[ax][ax+2])
		Q[ax+2][ax+2].Set(q)
	}
	var h [4]*big.Float
	for i := range h {
		h[i] = bnew(m.h[i])
	}
	mf, Pf := make([][4]*big.Float, T), make([]bmat, T)
	mp, Pp := make([][4]*big.Float, T), make([]bmat, T)
	var mc [4]*big.Float
	Pc := bzero()
	for i := range mc {
		mc[i] = bnew(0)
		Pc[i][i].SetFloat64(m.p0[i])
	}
	t1, t2 := bnew(0), bnew(0)
	for t := 0; t < T; t++ {
		if t > 0 {
			mc = bmatvec(A, mc)
			Pc = badd(bmul(bmul(A, Pc), btrans(A)), Q, 1)
		}
		mp[t], Pp[t] = mc, Pc
		var ph [4]*big.Float // P h
		S := bnew(m.r)
		e := bnew(m.y[t])
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

// TestBandJointPrecision: the exact band solve of cvGauss(900, 10⁻³, 10⁶)
// (3600 variables; Λ's condition number ~10¹¹), of the same chain read
// with variance 1 and of cvGauss(300, 10⁻⁵, 10⁴) against the Kalman
// smoother in 256-bit floats (kalmanBig): means to 1e-9 of their standard
// deviation, variances to 1e-9 relative, log Z to 1e-9 (measured 10⁻¹¹
// or better). The information form (Λ summed, then its Cholesky factor)
// missed by 1.1·10⁻⁴, 1.1·10⁻⁶ and 6.5·10⁻⁶ in relative variance.
func TestBandJointPrecision(t *testing.T) {
	for _, c := range []struct {
		T    int
		q, r float64
	}{{900, 1e-3, 1e6}, {900, 1e-3, 1}, {300, 1e-5, 1e4}} {
		g, m := cvGauss(c.T, c.q, c.r)
		res, err := Run(context.Background(), g, Settings{})
		if err != nil || !res.Exact {
			t.Fatal(err, res.Status, res.Message)
		}
		compareKalmanBig(t, fmt.Sprintf("T %d q %g r %g", c.T, c.q, c.r), res, m, 1e-9)
	}
}

// TestKalmanBig checks the reference itself: on a short, well-conditioned
// cvGauss chain (T = 30, q = 0.5, r = 2) kalmanBig equals the dense joint
// in covariance form (priorMoments and condition, a different method) to
// 1e-11 in means (in standard deviations) and relative variances, and
// log Z to 1e-10 (the dense joint's own rounding).
func TestKalmanBig(t *testing.T) {
	g, m := cvGauss(30, 0.5, 2)
	dense, err := Run(context.Background(), g, Settings{dense: true})
	if err != nil || !dense.Exact {
		t.Fatal(err, dense.Status, dense.Message)
	}
	mean, vr, logp := kalmanBig(m)
	for i := range mean {
		if !(math.Abs(mean[i]-dense.Mean[i]) <= 1e-11*math.Sqrt(vr[i])) || !(math.Abs(vr[i]-dense.Var[i]) <= 1e-11*vr[i]) {
			t.Errorf("x%d: kalmanBig %.15g ± %.15g, dense %.15g ± %.15g", i, mean[i], vr[i], dense.Mean[i], dense.Var[i])
		}
	}
	if !(math.Abs(logp-dense.LogZ) <= 1e-10) {
		t.Errorf("log Z: kalmanBig %.15g, dense %.15g", logp, dense.LogZ)
	}
}

// TestBandEPPrecision: cvGauss(900, 10⁻³, 10⁶)'s readings entered as EP
// sites (ep.Gaussian; EP is exact after one sweep, TestBandEPGaussianSites)
// on the band: the final marginals and log Z_EP, solved from the site
// messages in square-root information form (bandEP.solveQ), equal the
// 256-bit Kalman smoother to 1e-9 (means in standard deviations, relative
// variances, log Z); from q's information band they were off by 4.4e-5.
func TestBandEPPrecision(t *testing.T) {
	g, m := cvGauss(900, 1e-3, 1e6)
	sites := gaussianFactors(g, func(f int) bool { return len(g.evar[g.start[f]:g.start[f+1]]) == 2 && g.ecoef[g.start[f]+1] == -0.5 })
	if len(sites.liks) != 900 {
		t.Fatalf("%d sites", len(sites.liks))
	}
	res, err := Run(context.Background(), sites, Settings{Settings: infer.Settings{Tol: 1e-10}})
	if err != nil || res.Status != infer.Converged {
		t.Fatal(err, res.Status, res.Message)
	}
	compareKalmanBig(t, fmt.Sprintf("band EP, %d sweeps", res.Iterations), res, m, 1e-9)
}

// compareKalmanBig fails unless res's means (in standard deviations),
// variances (relative) and log Z are within tol of kalmanBig(m)'s.
func compareKalmanBig(t *testing.T, label string, res *Result, m ssm, tol float64) {
	t.Helper()
	mean, vr, logp := kalmanBig(m)
	dm, dv := 0.0, 0.0
	for i := range mean {
		dm = math.Max(dm, math.Abs(res.Mean[i]-mean[i])/math.Sqrt(vr[i]))
		dv = math.Max(dv, math.Abs(res.Var[i]-vr[i])/vr[i])
	}
	t.Logf("%s: max |Δmean|/sd %.2g, max |Δvar|/var %.2g, log Z %.12g vs %.12g (%.2g)", label, dm, dv, res.LogZ, logp, res.LogZ-logp)
	if !(dm <= tol) || !(dv <= tol) || !(math.Abs(res.LogZ-logp) <= tol) {
		t.Errorf("%s: differs from the 256-bit Kalman smoother: mean %.2g sd, variance %.2g relative, log Z %.2g (tolerance %g)", label, dm, dv, res.LogZ-logp, tol)
	}
}
