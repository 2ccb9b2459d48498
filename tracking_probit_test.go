package fg_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	fg "github.com/fg-infer/fg"
)

// The constant-velocity model of examples/tracking.fg and
// examples/tracking_probit.fg: x[t] = A x[t−1] + N(0, Q) from
// x[0] ~ N(m0, diag(p0)).
var (
	cvA = mat.NewDense(4, 4, []float64{1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1})
	cvQ = func(q float64) *mat.Dense {
		return mat.NewDense(4, 4, []float64{q / 3, 0, q / 2, 0, 0, q / 3, 0, q / 2, q / 2, 0, q, 0, 0, q / 2, 0, q})
	}(0.05)
	cvM0 = []float64{0, 0, 1, 0.5}
	cvP0 = []float64{10, 10, 1, 1}
)

// trackingProbitData simulates examples/tracking_probit.fg's target over T
// steps (seeded): the tripwire's side b[t] = +1 with probability
// Φ(x[t, 0] − 0.5 x[t, 1] − 2) and the detector's counts n[t] ~
// Poisson(exp(0.1 x[t, 1] + 0.5)); it returns their data lines.
func trackingProbitData(T int) string {
	rng, obs := rand.New(rand.NewPCG(uint64(T), 17)), rand.New(rand.NewPCG(uint64(T), 18))
	x := []float64{0, 0, 1, 0.5}
	bs, ns := make([]string, T), make([]string, T)
	for t := 0; t < T; t++ {
		if t > 0 {
			ax, ay := math.Sqrt(0.05)*rng.NormFloat64(), math.Sqrt(0.05)*rng.NormFloat64()
			x = []float64{x[0] + x[2] + ax/2, x[1] + x[3] + ay/2, x[2] + ax, x[3] + ay}
		}
		bs[t] = "-1"
		if obs.Float64() < 0.5*math.Erfc(-(x[0]-0.5*x[1]-2)/math.Sqrt2) {
			bs[t] = "1"
		}
		lambda, k, p := math.Exp(0.1*x[1]+0.5), 0, 1.0
		for p *= obs.Float64(); p > math.Exp(-lambda); p *= obs.Float64() {
			k++
		}
		ns[t] = strconv.Itoa(k)
	}
	return fmt.Sprintf("data b: spin[%d] = [%s]\ndata n: int[%d] = [%s]\n", T, strings.Join(bs, ", "), T, strings.Join(ns, ", "))
}

// trackingProbitBlock is the same model written as one Gaussian block: the
// 4T stacked states z ~ mvnormal(μ, K) with the chain's prior moments
// (μ_t = A^t m0, K_st = A^{t−s} P_s for s ≤ t, P_t = A P_{t−1} Aᵀ + Q,
// computed here), and each site on its row of a data matrix over z, which
// infer/ep's block engine solves on the dense joint.
func trackingProbitBlock(T int, data, infers string) string {
	d := 4
	mus := make([]*mat.VecDense, T)
	Ps := make([]*mat.Dense, T)
	mus[0] = mat.NewVecDense(d, append([]float64(nil), cvM0...))
	Ps[0] = mat.NewDense(d, d, nil)
	for i, v := range cvP0 {
		Ps[0].Set(i, i, v)
	}
	for t := 1; t < T; t++ {
		mus[t] = mat.NewVecDense(d, nil)
		mus[t].MulVec(cvA, mus[t-1])
		var ap mat.Dense
		ap.Mul(cvA, Ps[t-1])
		Ps[t] = mat.NewDense(d, d, nil)
		Ps[t].Mul(&ap, cvA.T())
		Ps[t].Add(Ps[t], cvQ)
	}
	N := d * T
	K := mat.NewDense(N, N, nil)
	for s := 0; s < T; s++ {
		c := mat.DenseCopyOf(Ps[s]) // A^{t−s} P_s
		for t := s; t < T; t++ {
			if t > s {
				var n mat.Dense
				n.Mul(cvA, c)
				c = &n
			}
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					K.Set(d*t+i, d*s+j, c.At(i, j))
					K.Set(d*s+j, d*t+i, c.At(i, j))
				}
			}
		}
	}
	row := func(f func(j int) float64) string {
		parts := make([]string, N)
		for j := range parts {
			parts[j] = strconv.FormatFloat(f(j), 'g', -1, 64)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var b strings.Builder
	b.WriteString("model tracking_probit_block\n" + data)
	fmt.Fprintf(&b, "data mu: real[%d] = %s\n", N, row(func(j int) float64 { return mus[j/d].AtVec(j % d) }))
	rows := func(name string, f func(t, j int) float64) {
		fmt.Fprintf(&b, "data %s: real[%d, %d] = [\n", name, T, N)
		for t := 0; t < T; t++ {
			fmt.Fprintf(&b, "  %s,\n", row(func(j int) float64 { return f(t, j) }))
		}
		b.WriteString("]\n")
	}
	fmt.Fprintf(&b, "data K: real[%d, %d] = [\n", N, N)
	for i := 0; i < N; i++ {
		fmt.Fprintf(&b, "  %s,\n", row(func(j int) float64 { return K.At(i, j) }))
	}
	b.WriteString("]\n")
	rows("Hb", func(t, j int) float64 {
		switch j {
		case d * t:
			return 1
		case d*t + 1:
			return -0.5
		}
		return 0
	})
	rows("Hn", func(t, j int) float64 {
		if j == d*t+1 {
			return 0.1
		}
		return 0
	})
	fmt.Fprintf(&b, `latent z: real[%d] ~ mvnormal(mu, K)
for t in 0..%d {
  b[t] ~ probit(dot(Hb[t], z) - 2)
  n[t] ~ poisson_log(dot(Hn[t], z) + 0.5)
}
%s`, N, T, infers)
	return b.String()
}

// TestTrackingProbitBlock: examples/tracking_probit.fg (T = 30: 120 latent
// elements, ep on the band of the chain's precision) equals the same model
// written as one Gaussian block over the 120 stacked states, solved by
// infer/ep on the dense joint: every element's mean and variance and
// log Z_EP to 1e-8 (both run to tol 1e-11). The example's data are
// trackingProbitData(30), and its expect lines hold this run's numbers.
func TestTrackingProbitBlock(t *testing.T) {
	const T = 30
	src, err := os.ReadFile("examples/tracking_probit.fg")
	if err != nil {
		t.Fatal(err)
	}
	data := trackingProbitData(T)
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		if !strings.Contains(string(src), line) {
			t.Fatalf("examples/tracking_probit.fg lacks the simulated data line\n%s", line)
		}
	}
	chain, err := fg.LoadBytes("tracking_probit.fg", src)
	if err != nil {
		t.Fatal(err)
	}
	cres, err := chain.Run(context.Background(), fg.Only("tight"))
	if err != nil {
		t.Fatal(err)
	}
	block, err := fg.LoadBytes("tracking_probit_block.fg", []byte(trackingProbitBlock(T, data, "infer ep { tol = 1e-11 }\n")))
	if err != nil {
		t.Fatal(err)
	}
	bres, err := block.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, b := cres.Get("tight"), bres.Get("ep")
	if !c.Status().OK() || !b.Status().OK() {
		t.Fatalf("chain %v %s, block %v %s", c.Status(), c.Message(), b.Status(), b.Message())
	}
	bad := 0
	for i := 0; i < 4*T; i++ {
		cm, _ := c.Mean("x", i)
		cv, _ := c.Variance("x", i)
		bm, _ := b.Mean("z", i)
		bv, _ := b.Variance("z", i)
		if !(math.Abs(cm-bm) <= 1e-8) || !(math.Abs(cv-bv) <= 1e-8) {
			if bad++; bad <= 5 {
				t.Errorf("x[%d, %d] = %.12g ± %.12g, block %.12g ± %.12g", i/4, i%4, cm, cv, bm, bv)
			}
		}
	}
	cz, cok := c.LogZ()
	bz, bok := b.LogZ()
	if !cok || !bok || !(math.Abs(cz-bz) <= 1e-8) {
		t.Errorf("log Z: chain %.12g (%v), block %.12g (%v)", cz, cok, bz, bok)
	}
	for _, i := range []int{0, 4*12 + 2, 4*29 + 1} {
		m, _ := c.Mean("x", i)
		v, _ := c.Variance("x", i)
		t.Logf("x[%d, %d] = %.12f ± %.12f", i/4, i%4, m, v)
	}
	t.Logf("log Z = %.12f; %d sweeps", cz, c.Iterations())
}

// TestTrackingProbitLong: a mean-reverting variant of the tracking model
// (positions pulled back by 0.98 per step, velocities by 0.8, so the target
// stays near the sensors) over T = 2500 steps, 10⁴ latent elements — over
// the dense joint's bound of 4000 — with a tripwire label and a count per
// step compiles and converges under ep's default line (on the band), with a
// log Z and a proper marginal for every element.
func TestTrackingProbitLong(t *testing.T) {
	const T = 2500
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([]float64, 4)
	bs, ns := make([]string, T), make([]string, T)
	for i := 0; i < T; i++ {
		ax, ay := math.Sqrt(0.05)*rng.NormFloat64(), math.Sqrt(0.05)*rng.NormFloat64()
		x = []float64{0.98*x[0] + x[2] + ax/2, 0.98*x[1] + x[3] + ay/2, 0.8*x[2] + ax, 0.8*x[3] + ay}
		bs[i] = "-1"
		if rng.Float64() < 0.5*math.Erfc(-(x[0]-0.5*x[1])/math.Sqrt2) {
			bs[i] = "1"
		}
		lambda, k, p := math.Exp(0.1*x[1]+0.5), 0, 1.0
		for p *= rng.Float64(); p > math.Exp(-lambda); p *= rng.Float64() {
			k++
		}
		ns[i] = strconv.Itoa(k)
	}
	src := fmt.Sprintf(`model tracking_probit_long
param T = %d
data A = [[0.98, 0, 1, 0], [0, 0.98, 0, 1], [0, 0, 0.8, 0], [0, 0, 0, 0.8]]
data Q = 0.05 * [[1 / 3, 0, 1 / 2, 0], [0, 1 / 3, 0, 1 / 2], [1 / 2, 0, 1, 0], [0, 1 / 2, 0, 1]]
data H = [1, -0.5, 0, 0]
data b: spin[%d] = [%s]
data n: int[%d] = [%s]
latent x: real[T, 4]
x[0] ~ normal([0, 0, 0, 0], [10, 10, 1, 1])
for t in 1..T {
  x[t] ~ mvnormal(A @ x[t - 1], Q)
}
for t in 0..T {
  b[t] ~ probit(dot(H, x[t]))
  n[t] ~ poisson_log(0.1 * x[t, 1] + 0.5)
}
infer ep
`, T, T, strings.Join(bs, ", "), T, strings.Join(ns, ", "))
	m, err := fg.LoadBytes("tracking_probit_long.fg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Get("ep")
	if r.Status() != fg.StatusConverged {
		t.Fatalf("%v %s", r.Status(), r.Message())
	}
	if z, ok := r.LogZ(); !ok || math.IsNaN(z) || math.IsInf(z, 0) {
		t.Errorf("log Z %g (%v)", z, ok)
	}
	t.Logf("%d sweeps", r.Iterations())
	for i := 0; i < 4*T; i++ {
		if v, err := r.Variance("x", i); err != nil || !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("x[%d, %d]: variance %g (%v)", i/4, i%4, v, err)
		}
	}
}
