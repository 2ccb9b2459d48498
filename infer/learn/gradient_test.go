package learn

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer/ep"
)

// TestGradientFiniteDifferenceGPML checks ∂ log Z_EP/∂(log ℓ, log sf[, ε])
// against central finite differences of log Z_EP (each evaluation a fresh
// EP run converged to 1e-12) on the GPML reference cases, to 1e-5 relative.
// The step case runs plain EP (no clamping of negative site precisions),
// whose fixed point is stationary in the sites.
func TestGradientFiniteDifferenceGPML(t *testing.T) {
	cases := []struct {
		name string
		x    []float64
		lik  func(x []float64) ep.Likelihood
		nlZ  float64 // GPML summary.tsv, probit only (GPML clamps step sites)
	}{
		{"toy2d_se_probit", []float64{0, 0}, probit, 18.479878877658741},
		{"toy2d_se_step01", []float64{0, 0, 0.1}, step, 0},
		{"pima_ripley_se_probit", []float64{1, 0.5}, probit, 105.32307179474708},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name == "pima_ripley_se_probit" {
				t.Skip("n = 200: long mode only")
			}
			X, y := gpmlData(t, c.name, "train.csv")
			build := seBuilder(X, y, c.lik)
			lz, g := evidence(t, build, c.x)
			if c.nlZ != 0 && relErr(-lz, c.nlZ) > 1e-6 {
				t.Errorf("log Z_EP = %.10f, GPML nlZ %.10f", lz, c.nlZ)
			}
			fd := centralFD(t, build, c.x, 1e-4)
			for k := range g {
				if e := relErr(g[k], fd[k]); e > 1e-5 {
					t.Errorf("∂/∂x%d: analytic %.10g, finite difference %.10g (rel %.2g)", k, g[k], fd[k], e)
				}
			}
			t.Logf("log Z %.8f grad %v fd %v", lz, g, fd)
		})
	}
}

func probit([]float64) ep.Likelihood { return ep.Probit{} }
func step(x []float64) ep.Likelihood { return ep.Step{Eps: x[2]} }

// TestGradientDimensionErrors: mismatched derivative shapes are errors, not
// panics, in Gradient and in Optimize.
func TestGradientDimensionErrors(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_probit", "train.csv")
	build := seBuilder(X, y, probit)
	blocks, _ := build([]float64{0, 0})
	res, err := ep.Run(context.Background(), blocks[0].Problem, ep.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	bad := *blocks[0]
	bad.DCov = []*mat.SymDense{mat.NewSymDense(3, nil)}
	if _, err := Gradient(res, &bad); err == nil {
		t.Error("3×3 ∂K for a 40×40 prior: no error")
	}
	bad = *blocks[0]
	bad.DLik = [][]float64{{1, 2}}
	if _, err := Gradient(res, &bad); err == nil {
		t.Error("2 site derivatives for 40 sites: no error")
	}
	if _, err := Gradient(&ep.Result{}, blocks[0]); err == nil {
		t.Error("result without evidence: no error")
	}
	wrong := func(x []float64) ([]*Block, error) {
		bs, err := build(x)
		bs[0].DCov = append(bs[0].DCov, bs[0].DCov[0])
		return bs, err
	}
	if _, err := Optimize(context.Background(), wrong, []Param{{Name: "a"}, {Name: "b"}}, Settings{}); err == nil {
		t.Error("builder with 3 derivatives for 2 params: no error")
	}
}

// TestIdentityR: R from GPML's B-form (identityR: one Cholesky and inverse
// of B = I + S K S) against R = ααᵀ − (T̃ − T̃ Σ T̃) from the posterior
// covariance that infer/ep returns, on pima_ripley_se_probit (n = 200)
// after EP, to 1e-10 relative to the largest entry.
func TestIdentityR(t *testing.T) {
	X, y := gpmlData(t, "pima_ripley_se_probit", "train.csv")
	blocks, err := seBuilder(X, y, probit)([]float64{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	p := blocks[0].Problem
	res, err := ep.Run(context.Background(), p, ep.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	alpha := make([]float64, len(res.Sites))
	for i, s := range res.Sites {
		alpha[i] = s.Shift - s.Prec*res.FMean[i]
	}
	got, ok := identityR(alpha, res.Sites, p)
	if !ok {
		t.Fatal("identityR does not apply to probit sites on a GP")
	}
	S, err := res.Cov()
	if err != nil {
		t.Fatal(err)
	}
	n := len(alpha)
	scale, worst := 0.0, 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			ti, tj := res.Sites[i].Prec, res.Sites[j].Prec
			want := alpha[i]*alpha[j] + ti*tj*S.At(i, j)
			if i == j {
				want -= ti
			}
			scale = math.Max(scale, math.Abs(want))
			worst = math.Max(worst, math.Abs(got.At(i, j)-want))
		}
	}
	if !(worst <= 1e-10*scale) {
		t.Errorf("max |R_B − R_Σ| = %g (largest entry %g)", worst, scale)
	}
}

// TestGradientKeptCov: the gradient from the running Σ_f that EP keeps
// with KeepCov (what Optimize uses: no factorisation) equals the one from
// GPML's B-form (identityR) to 1e-10 relative, on pima_ripley_se_probit
// (n = 200) at GPML's start and on toy2d_se_step01 (sites with ε).
func TestGradientKeptCov(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		lik  func(x []float64) ep.Likelihood
	}{{"pima_ripley_se_probit", []float64{1, 0.5}, probit}, {"toy2d_se_step01", []float64{0, 0, 0.1}, step}} {
		X, y := gpmlData(t, c.name, "train.csv")
		blocks, err := seBuilder(X, y, c.lik)(c.x)
		if err != nil {
			t.Fatal(err)
		}
		s := tight
		s.KeepCov = true
		res, err := ep.Run(context.Background(), blocks[0].Problem, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.SiteCov(); !ok {
			t.Fatalf("%s: EP kept no covariance", c.name)
		}
		got, err := Gradient(res, blocks[0])
		if err != nil {
			t.Fatal(err)
		}
		res, err = ep.Run(context.Background(), blocks[0].Problem, tight)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Gradient(res, blocks[0])
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if relErr(got[k], want[k]) > 1e-10 {
				t.Errorf("%s: ∂/∂x%d = %.15g from Σ_f, %.15g from B", c.name, k, got[k], want[k])
			}
		}
	}
}

// TestGradientPriorMean: ∂ log Z_EP/∂x through the prior mean,
// αᵀA ∂m0/∂x (Block.DMean), with m0 = x₂·1 + x₃·X[:, 0] on
// toy2d_se_probit (with the kernel's two params), against central finite
// differences of log Z_EP (EP converged to 1e-12), to 1e-5 relative — with
// the sites on the elements and on dense projections 0.7 f_i + 0.3 f_{i+1}.
func TestGradientPriorMean(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_probit", "train.csv")
	n := len(y)
	for _, dense := range []bool{false, true} {
		base := seBuilder(X, y, probit)
		build := func(x []float64) ([]*Block, error) {
			bs, err := base(x[:2])
			if err != nil {
				return nil, err
			}
			b := bs[0]
			b.DCov = append(b.DCov, nil, nil)
			b.Problem.Mean = make([]float64, n)
			b.DMean = [][]float64{nil, nil, ones(n), make([]float64, n)}
			for i := range n {
				b.Problem.Mean[i] = x[2] + x[3]*X.At(i, 0)
				b.DMean[3][i] = X.At(i, 0)
				if dense {
					p := make([]float64, n)
					p[i], p[(i+1)%n] = 0.7, 0.3
					b.Problem.Sites[i].Proj = p
				}
			}
			return bs, nil
		}
		x := []float64{0.2, 0.3, 0.4, -0.5}
		_, g := evidence(t, build, x)
		fd := centralFD(t, build, x, 1e-4)
		for k := range g {
			if e := relErr(g[k], fd[k]); e > 1e-5 {
				t.Errorf("dense %v: ∂/∂x%d: analytic %.10g, finite difference %.10g (rel %.2g)", dense, k, g[k], fd[k], e)
			}
		}
	}
}
