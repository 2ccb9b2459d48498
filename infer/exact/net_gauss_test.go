package exact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/graph"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
)

// TestNetGaussianChain: x[0] ~ N(0, 1), x[t] ~ N(0.9 x[t−1], 0.5),
// y[t] ~ N(x[t], 0.3) at T = 100 held as a Net: exact's closed form (a
// band of half-width 1) equals a Kalman filter and Rauch–Tung–Striebel
// smoother written here — log Z by the prediction-error decomposition,
// the smoothed means and variances — to 1e-9.
func TestNetGaussianChain(t *testing.T) {
	const T, a, q, r = 100, 0.9, 0.5, 0.3
	rng := rand.New(rand.NewPCG(5, 6))
	ys := make([]float64, T)
	x := 0.0
	for i := range ys {
		x = a*x + math.Sqrt(q)*rng.NormFloat64()
		ys[i] = x + math.Sqrt(r)*rng.NormFloat64()
	}
	var n graph.Net
	var xs []int
	for i, y := range ys {
		v := nt.Var(&n, "x", graph.Gaussian, 1)
		if i == 0 {
			nt.Factor(&n, nt.NormalPrior, v, nt.D("mean", 0), nt.D("var", 1))
		} else {
			mean := graph.Edge{Name: "mean", Vars: []int{xs[i-1]}, Coefs: []float64{a}}
			nt.Factor(&n, nt.NormalPrior, v, mean, nt.D("var", q))
		}
		nt.Obs(&n, nt.Normal, y, nt.V("mean", v), nt.D("var", r))
		xs = append(xs, v)
	}
	res := runNet(t, &n, "closed form")
	// Kalman filter: predicted (mp, vp), filtered (mf, vf)
	mp, vp := make([]float64, T), make([]float64, T)
	mf, vf := make([]float64, T), make([]float64, T)
	logZ := 0.0
	for i, y := range ys {
		if i == 0 {
			mp[i], vp[i] = 0, 1
		} else {
			mp[i], vp[i] = a*mf[i-1], a*a*vf[i-1]+q
		}
		s := vp[i] + r
		logZ += -0.5*math.Log(2*math.Pi*s) - 0.5*(y-mp[i])*(y-mp[i])/s
		g := vp[i] / s
		mf[i], vf[i] = mp[i]+g*(y-mp[i]), (1-g)*vp[i]
	}
	ms, vs := append([]float64(nil), mf...), append([]float64(nil), vf...)
	for i := T - 2; i >= 0; i-- {
		c := vf[i] * a / vp[i+1]
		ms[i] = mf[i] + c*(ms[i+1]-mp[i+1])
		vs[i] = vf[i] + c*c*(vs[i+1]-vp[i+1])
	}
	near(t, "log Z", res.LogZ, logZ, 1e-9)
	for i, v := range xs {
		near(t, "mean", res.Vars[v].Mean[0], ms[i], 1e-9)
		near(t, "var", res.Vars[v].Var[0], vs[i], 1e-9)
	}
}
