package mp

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// Mean and precision of a Gaussian: μ ~ N(m0, v0), τ ~ Gamma(a0, b0)
// independently, x_n ~ N(μ, 1/τ).
var (
	mpX        = []float64{1.2, 2.9, 0.4, 2.2, 1.7, 3.1, 0.8, 2.5}
	mpM0, mpV0 = 0.5, 4.0
	mpA0, mpB0 = 2.0, 1.5
)

func meanPrecNet() (net *graph.Net, mu, tau int) {
	net = &graph.Net{}
	mu = net.AddVar(graph.NetVar{Name: "mu", Family: graph.Gaussian})
	tau = net.AddVar(graph.NetVar{Name: "tau", Family: graph.Gamma})
	net.AddFactor(prior(factor.NormalPrior{}, graph.VarEdge("x", mu), graph.DataEdge("mean", mpM0), graph.DataEdge("var", mpV0)))
	net.AddFactor(prior(factor.Gamma{}, graph.VarEdge("x", tau), graph.DataEdge("shape", mpA0), graph.DataEdge("rate", mpB0)))
	for _, x := range mpX {
		net.AddFactor(obs(factor.Normal{}, x, graph.VarEdge("mean", mu), graph.VarEdge("prec", tau)))
	}
	return net, mu, tau
}

// cavi is the coordinate-ascent fixed point of mean-field VB for this
// model (Bishop 2006, §10.1.3, with independent priors):
//
//	q(μ) = N(m, v):   1/v = 1/v0 + N E[τ],   m = v (m0/v0 + E[τ] Σ x)
//	q(τ) = Gamma(a, b): a = a0 + N/2,   b = b0 + ½ Σ ((x − m)² + v)
//
// iterated until nothing changes, and its ELBO
// E log p(x, μ, τ) + H[q(μ)] + H[q(τ)].
func cavi() (m, v, a, b, elbo float64) {
	n := float64(len(mpX))
	var sx float64
	for _, x := range mpX {
		sx += x
	}
	a, b = mpA0+n/2, mpB0
	for range 10000 {
		et := a / b
		v = 1 / (1/mpV0 + n*et)
		m = v * (mpM0/mpV0 + et*sx)
		nb := mpB0
		for _, x := range mpX {
			nb += 0.5 * ((x-m)*(x-m) + v)
		}
		if nb == b {
			break
		}
		b = nb
	}
	et, elt := a/b, families.Digamma(a)-math.Log(b)
	var ss float64
	for _, x := range mpX {
		ss += (x-m)*(x-m) + v
	}
	elbo = -n/2*math.Log(2*math.Pi) + n/2*elt - et/2*ss
	elbo += -0.5*math.Log(2*math.Pi*mpV0) - ((m-mpM0)*(m-mpM0)+v)/(2*mpV0)
	elbo += mpA0*math.Log(mpB0) - lgamma(mpA0) + (mpA0-1)*elt - mpB0*et
	elbo += 0.5 * math.Log(2*math.Pi*math.E*v)
	elbo += a - math.Log(b) + lgamma(a) + (1-a)*families.Digamma(a)
	return m, v, a, b, elbo
}

// grid is the exact posterior by a grid over t = log τ (200 000 cells on
// [−12, 8], trapezoid) with μ integrated in closed form at each τ: log Z,
// the posterior mean and sd of μ and of τ.
func grid() (logZ, mMu, sdMu, mTau, sdTau float64) {
	n := float64(len(mpX))
	var sx, sxx float64
	for _, x := range mpX {
		sx += x
		sxx += x * x
	}
	const cells = 200000
	lo, hi := -12.0, 8.0
	h := (hi - lo) / cells
	lw := make([]float64, cells+1)
	mu1, mu2 := make([]float64, cells+1), make([]float64, cells+1)
	mx := math.Inf(-1)
	for i := range lw {
		t := lo + float64(i)*h
		tau := math.Exp(t)
		p := 1/mpV0 + n*tau // μ | τ, x: precision p, mean (m0/v0 + τ Σx)/p
		s := mpM0/mpV0 + tau*sx
		// log ∫ N(μ; m0, v0) Π N(x; μ, 1/τ) dμ
		l := -0.5*math.Log(2*math.Pi*mpV0) + n/2*math.Log(tau/(2*math.Pi)) - 0.5*mpM0*mpM0/mpV0 - 0.5*tau*sxx +
			0.5*s*s/p + 0.5*math.Log(2*math.Pi/p)
		l += mpA0*math.Log(mpB0) - lgamma(mpA0) + (mpA0-1)*t - mpB0*tau + t
		lw[i] = l
		mu1[i], mu2[i] = s/p, s*s/(p*p)+1/p
		mx = max(mx, l)
	}
	var z, e1, e2, t1, t2 float64
	for i, l := range lw {
		w := math.Exp(l - mx)
		if i == 0 || i == cells {
			w /= 2
		}
		tau := math.Exp(lo + float64(i)*h)
		z += w
		e1 += w * mu1[i]
		e2 += w * mu2[i]
		t1 += w * tau
		t2 += w * tau * tau
	}
	logZ = mx + math.Log(z*h)
	mMu, mTau = e1/z, t1/z
	return logZ, mMu, math.Sqrt(e2/z - mMu*mMu), mTau, math.Sqrt(t2/z - mTau*mTau)
}

// TestMeanPrecisionVMP: alpha(0) equals the coordinate-ascent fixed point
// (1e-8 in the parameters of q(μ), q(τ) and in the ELBO), and the ELBO is
// below the grid's log evidence.
func TestMeanPrecisionVMP(t *testing.T) {
	net, mu, tau := meanPrecNet()
	res := run(t, net, 0)
	m, v, a, b, elbo := cavi()
	g := families.GaussianOf(res.Beliefs[mu])
	q := families.GammaOf(res.Beliefs[tau])
	near(t, "mean of q(μ)", g.Mean(), m, 1e-8)
	near(t, "variance of q(μ)", g.Var(), v, 1e-8)
	near(t, "shape of q(τ)", q.Shape, a, 1e-8)
	near(t, "rate of q(τ)", q.Rate, b, 1e-8)
	near(t, "ELBO", res.LogEvidence, elbo, 1e-8)
	logZ, _, _, _, _ := grid()
	if !(res.LogEvidence < logZ) {
		t.Errorf("ELBO %g is not below log Z %g", res.LogEvidence, logZ)
	}
}

// TestMeanPrecisionEP: EP (quadrature in log τ for the likelihood's
// messages) is within 5% of the grid in the posterior mean and sd of μ
// and the mean of τ, and its log Z within 0.06 of the grid's. The sd of τ
// is 7.8% above the exact one (EP 0.5125, exact 0.4757; the Gamma that
// matches the exact E τ and E log τ has sd 0.4756, so the projection is
// not the cause): that is EP's fixed point on these eight points, which
// gridEP — EP written independently on a 2-D grid — reproduces
// (TestMeanPrecisionEPGrid); the test bounds it at 10% and says so.
func TestMeanPrecisionEP(t *testing.T) {
	net, mu, tau := meanPrecNet()
	res := run(t, net, 1)
	logZ, mMu, sdMu, mTau, sdTau := grid()
	g := families.GaussianOf(res.Beliefs[mu])
	q := families.GammaOf(res.Beliefs[tau])
	within := func(what string, got, want, tol float64) {
		if !(math.Abs(got-want) <= tol*math.Abs(want)) {
			t.Errorf("%s = %g, grid %g: more than %g%% off", what, got, want, 100*tol)
		}
		t.Logf("%s: ep %.6g, grid %.6g (%.2g%%)", what, got, want, 100*(got-want)/want)
	}
	within("mean μ", g.Mean(), mMu, 0.05)
	within("sd μ", math.Sqrt(g.Var()), sdMu, 0.05)
	within("mean τ", q.Mean(), mTau, 0.05)
	within("sd τ", math.Sqrt(q.Var()), sdTau, 0.10)
	if !(math.Abs(res.LogEvidence-logZ) <= 0.06) {
		t.Errorf("log Z_EP = %g, grid %g", res.LogEvidence, logZ)
	}
	t.Logf("log Z: ep %.6g, grid %.6g", res.LogEvidence, logZ)
}

// gridEP is power EP (power u; u = 1 is EP) for the mean-and-precision
// model written independently of the rules: each site's tilted
// distribution f^u · q/m^u is integrated on a 2-D grid
// over (μ, log τ) (601 × 601 cells, trapezoid), the moments projected
// onto N(μ) × Gamma(τ) (the Gamma shape by bisection on log a − ψ(a)),
// sites updated in order until they stop changing.
func gridEP(u float64) (mMu, vMu, aTau, bTau float64) {
	n := len(mpX)
	const cells = 600
	mlo, mhi, tlo, thi := -6.0, 8.0, -8.0, 4.0
	hm, ht := (mhi-mlo)/cells, (thi-tlo)/cells
	sr, sh, sc, sd := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	sum := func(x []float64, skip int) (s float64) {
		for i, v := range x {
			if i != skip {
				s += v
			}
		}
		return s
	}
	lw := make([]float64, (cells+1)*(cells+1))
	for range 200 {
		var change float64
		for i := range n {
			P, H := 1/mpV0+sum(sr, -1)-u*sr[i], mpM0/mpV0+sum(sh, -1)-u*sh[i]
			A, B := mpA0+sum(sc, -1)-u*sc[i], mpB0+sum(sd, -1)-u*sd[i]
			mx := math.Inf(-1)
			for a := 0; a <= cells; a++ {
				mu := mlo + float64(a)*hm
				for b := 0; b <= cells; b++ {
					t := tlo + float64(b)*ht
					tau := math.Exp(t)
					d := mpX[i] - mu
					l := -0.5*P*mu*mu + H*mu + A*t - B*tau + u*(0.5*t-0.5*tau*d*d)
					lw[a*(cells+1)+b] = l
					mx = max(mx, l)
				}
			}
			var z, e1, e2, el, et float64
			for a := 0; a <= cells; a++ {
				mu := mlo + float64(a)*hm
				for b := 0; b <= cells; b++ {
					t := tlo + float64(b)*ht
					w := math.Exp(lw[a*(cells+1)+b] - mx)
					if a == 0 || a == cells {
						w /= 2
					}
					if b == 0 || b == cells {
						w /= 2
					}
					z += w
					e1 += w * mu
					e2 += w * mu * mu
					el += w * t
					et += w * math.Exp(t)
				}
			}
			e1, e2, el, et = e1/z, e2/z, el/z, et/z
			v := e2 - e1*e1
			s := math.Log(et) - el
			lo, hi := 1e-8, 1e8
			for range 200 {
				mid := math.Sqrt(lo * hi)
				if math.Log(mid)-families.Digamma(mid) > s {
					lo = mid
				} else {
					hi = mid
				}
			}
			a := math.Sqrt(lo * hi)
			nr, nh, nc, nd := (1/v-P)/u, (e1/v-H)/u, (a-A)/u, (a/et-B)/u
			change = max(change, math.Abs(nr-sr[i]), math.Abs(nc-sc[i]))
			sr[i], sh[i], sc[i], sd[i] = nr, nh, nc, nd
		}
		if change < 1e-9 {
			break
		}
	}
	P, H := 1/mpV0+sum(sr, -1), mpM0/mpV0+sum(sh, -1)
	return H / P, 1 / P, mpA0 + sum(sc, -1), mpB0 + sum(sd, -1)
}

// TestMeanPrecisionEPGrid: the engine's EP and power EP (alpha(0.5))
// fixed points (1-D quadrature in log τ with μ integrated in closed form)
// equal gridEP's (2-D grid) to 1e-5 relative.
func TestMeanPrecisionEPGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("2-D grid EP: seconds")
	}
	for _, u := range []float64{1, 0.5} {
		net, mu, tau := meanPrecNet()
		res := run(t, net, u)
		m, v, a, b := gridEP(u)
		g := families.GaussianOf(res.Beliefs[mu])
		q := families.GammaOf(res.Beliefs[tau])
		near(t, "mean μ", g.Mean(), m, 1e-5)
		near(t, "var μ", g.Var(), v, 1e-5)
		near(t, "shape τ", q.Shape, a, 1e-5)
		near(t, "rate τ", q.Rate, b, 1e-5)
	}
}
