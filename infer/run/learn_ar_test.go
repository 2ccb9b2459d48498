package run

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/learn"
)

// arComp is one AR(1) component x_t ~ N(a x_{t−1} + d, q), x_0 ~ N(0, p0).
type arComp struct{ a, d, q, p0 float64 }

// kalmanLogLik is the exact log likelihood of y under the state space
// model of independent AR(1) components observed through their sum,
// y_t ~ N(Σ_i x_{i,t}, r), by the Kalman filter's prediction-error
// decomposition (a dense k×k state covariance) — written here,
// independently of fg's compiler and message passing.
func kalmanLogLik(y []float64, cs []arComp, r float64) float64 {
	k := len(cs)
	m, p := make([]float64, k), make([][]float64, k)
	for i := range p {
		p[i] = make([]float64, k)
		p[i][i] = cs[i].p0
	}
	ph := make([]float64, k) // P Hᵀ, H = (1, …, 1)
	var ll float64
	for t, yt := range y {
		if t > 0 {
			for i, c := range cs {
				m[i] = c.a*m[i] + c.d
				for j := range cs {
					p[i][j] *= c.a * cs[j].a
				}
				p[i][i] += c.q
			}
		}
		s, e := r, yt
		for i := range cs {
			ph[i] = 0
			for j := range cs {
				ph[i] += p[i][j]
			}
			s += ph[i]
			e -= m[i]
		}
		ll -= 0.5 * (math.Log(2*math.Pi*s) + e*e/s)
		for i := range cs {
			m[i] += ph[i] / s * e
			for j := range cs {
				p[i][j] -= ph[i] * ph[j] / s
			}
		}
	}
	return ll
}

// TestLearnARKalman: learning examples/learn_ar.fg's AR coefficient a
// and drift d (q = 0.1, r = 0.2, x_0 ~ N(0, 1); gradient tolerance 1e-8) reaches the maximiser of
// the Kalman filter's exact log likelihood: the filter at the learned
// values reproduces learn's best evidence to 1e-9, and each learned value
// is the golden-section maximiser (step 1e-9) of the filter's log
// likelihood along its coordinate to 1e-6.
func TestLearnARKalman(t *testing.T) {
	m := compileFGCase(t, "../../examples/learn_ar.fg", "", [2]string{})
	m.Learn.Settings.Tol = 1e-8
	y := m.Data["y"].Num
	_, learned, trace, err := Learn(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(learned) != 2 || learned[0].Name != "a" || learned[1].Name != "d" {
		t.Fatalf("learned %+v", learned)
	}
	kf := func(x []float64) float64 { return kalmanLogLik(y, []arComp{{x[0], x[1], 0.1, 1}}, 0.2) }
	checkLearnedOptimum(t, m, learned, trace, kf, 1e-9, 1e-9, 1e-6)
}

// arLoop is an AR(1) state with a drift plus a random walk, observed
// through their sum: a factor graph with loops (x[t], z[t] and y[t]), so
// learned on the joint Gaussian block, where the drift moves the joint
// prior mean (learn.Block.DMean) and the coefficient its covariance.
const arLoop = `
param a = 0.5
param d = 0.1
data y: real[12] = [0.3, 0.5, 0.9, 1.1, 0.7, 1.4, 1.2, 1.6, 1.1, 1.5, 1.9, 1.3]
latent x: real[12]
latent z: real[12]
x[0] ~ normal(0, 1)
z[0] ~ normal(0, 1)
for t in 1..12 {
  x[t] ~ normal(a * x[t - 1] + d, 0.2)
  z[t] ~ normal(z[t - 1], 0.05)
}
for t in 0..12 {
  y[t] ~ normal(x[t] + z[t], 0.1)
}
learn a, d { tol = 1e-8 }
infer ep { tol = 1e-12 }
`

// TestLearnARLoopKalman: on arLoop (the joint block) learn reaches the
// maximiser of the two-component Kalman filter's exact log likelihood,
// with the tolerances of TestLearnARKalman.
func TestLearnARLoopKalman(t *testing.T) {
	m := compileFGCase(t, "", arLoop, [2]string{})
	lm, err := learnView(m)
	if err != nil || len(lm.Blocks()) != 1 {
		t.Fatalf("learn view: %v, %d blocks, want the joint block", err, len(lm.Blocks()))
	}
	y := m.Data["y"].Num
	_, learned, trace, err := Learn(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kf := func(x []float64) float64 {
		return kalmanLogLik(y, []arComp{{x[0], x[1], 0.2, 1}, {1, 0, 0.05, 1}}, 0.1)
	}
	checkLearnedOptimum(t, m, learned, trace, kf, 1e-9, 1e-9, 1e-6)
}

// TestLearnARClosedForm: with the state observed almost exactly
// (y_t ~ N(x_t, 1e-12)) the evidence of an AR(1) coefficient a with known
// process variance is that of the fully observed chain, whose maximiser is
// â = Σ_t y_t y_{t−1} / Σ_t y_{t−1}² (least squares through the origin;
// the observation noise moves it by O(10⁻¹²)); learn reaches it to 1e-6
// relative, from a start above and one below it.
func TestLearnARClosedForm(t *testing.T) {
	y := []float64{0.4, 0.9, 0.35, -0.2, 0.1, 0.55, 0.8, 0.3, -0.45, -0.6, -0.1, 0.25, 0.7, 0.5, 0.05, -0.3}
	var sxy, sxx float64
	for i := 1; i < len(y); i++ {
		sxy += y[i] * y[i-1]
		sxx += y[i-1] * y[i-1]
	}
	want := sxy / sxx
	for _, a0 := range []float64{0.1, 0.9} {
		src := fmt.Sprintf(`
param a = %g
data y = %s
latent x: real[16]
x[0] ~ normal(0, 1)
for t in 1..16 {
  x[t] ~ normal(a * x[t - 1], 0.05)
}
for t in 0..16 {
  y[t] ~ normal(x[t], 1e-12)
}
learn a { tol = 1e-9 }
infer ep { tol = 1e-12 }
`, a0, fmtList(y))
		m, err := compile.CompileSource("ar_observed.fg", []byte(src), compile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, learned, _, err := Learn(context.Background(), m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := learned[0].Value; !(math.Abs(got/want-1) <= 1e-6) {
			t.Errorf("from a = %g: learned %.10g, closed form Σ y_t y_{t−1}/Σ y_{t−1}² = %.10g", a0, got, want)
		}
	}
}

func fmtList(x []float64) string {
	s := "["
	for i, v := range x {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(v)
	}
	return s + "]"
}

// TestLearnZeroStart: a learned coefficient that starts at exactly 0 (its
// variable then drops out of the compiled factor) starts at 1e-5 instead
// and reaches the optimum of a non-zero start, to 1e-6: the AR
// coefficient of examples/learn_ar.fg (a factor graph) and the gain b of
// netAffine (a typed factor graph, an affine edge); the reported initial
// value stays 0.
func TestLearnZeroStart(t *testing.T) {
	arSrc, err := os.ReadFile("../../examples/learn_ar.fg")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, src, from, to string
	}{
		{"ar", string(arSrc), "param a = 0.5", "param a = 0"},
		// mu's prior mean 1 makes the evidence asymmetric in b (with mean 0
		// b and −b are both maxima).
		{"affine", strings.Replace(netAffine("kl", "learn b"), "normal(0, 10)", "normal(1, 10)", 1), "param b = 1", "param b = 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(src string) []infer.Learned {
				m, err := compile.CompileSource(c.name+".fg", []byte(src), compile.Options{})
				if err != nil {
					t.Fatal(err)
				}
				m.Learn.Settings.Tol = 1e-9
				_, learned, _, err := Learn(context.Background(), m, Options{})
				if err != nil {
					t.Fatal(err)
				}
				return learned
			}
			if !strings.Contains(c.src, c.from) {
				t.Fatalf("no %q", c.from)
			}
			want, got := run(c.src), run(strings.Replace(c.src, c.from, c.to, 1))
			if got[0].Initial != 0 {
				t.Errorf("initial %g, want 0", got[0].Initial)
			}
			for i := range want {
				if !(math.Abs(got[i].Value-want[i].Value) <= 1e-6*math.Max(1, math.Abs(want[i].Value))) {
					t.Errorf("%s from 0: %.10g, from the file's start %.10g", got[i].Name, got[i].Value, want[i].Value)
				}
			}
		})
	}
}

// TestLearnStopsAtResolution: on arLoop, asked for a gradient of 10⁻⁸,
// below what log Z resolves there (its rounding is 10⁻¹⁵, its curvature
// O(10), so the maximiser is known to ~10⁻⁸ and the gradient to ~10⁻⁷),
// the optimiser stops converged at the first evaluation that passes the
// gradient test within FuncTol of the best log Z — not after dozens of
// line-search trials at x equal to 16 digits (a line-search failure).
func TestLearnStopsAtResolution(t *testing.T) {
	m := compileFGCase(t, "", arLoop, [2]string{})
	lb := testBuilder(t, m)
	o := m.Learn.Settings
	res, err := learn.Optimize(context.Background(), lb.build, lb.params, learn.Settings{Method: o.Method, MaxIter: o.MaxIter, GradTol: o.Tol})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Converged || res.Updates > 30 {
		t.Errorf("status %s (%s) after %d evaluations; want converged within 30", res.Status, res.Message, res.Updates)
	}
}
