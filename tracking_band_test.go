package fg_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	fg "github.com/fg-infer/fg"
)

// trackingModel is examples/tracking.fg over T steps, with the readings
// of a target simulated from the model (seeded): the source, and the
// readings for the Kalman smoother.
func trackingModel(T int, methods string) (string, [][]float64) {
	rng := rand.New(rand.NewPCG(uint64(T), 7))
	const q, r = 0.05, 0.25
	x := []float64{0, 0, 1, 0.5}
	ys := make([][]float64, T)
	var b strings.Builder
	fmt.Fprintf(&b, "model tracking\nparam T = %d\n", T)
	b.WriteString(`data A = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]]
data Q = 0.05 * [[1 / 3, 0, 1 / 2, 0], [0, 1 / 3, 0, 1 / 2], [1 / 2, 0, 1, 0], [0, 1 / 2, 0, 1]]
data H = [[1, 0, 0, 0], [0, 1, 0, 0]]
`)
	fmt.Fprintf(&b, "data y: real[%d, 2] = [\n", T)
	for t := range ys {
		if t > 0 { // constant velocity plus white-noise acceleration
			ax, ay := math.Sqrt(q)*rng.NormFloat64(), math.Sqrt(q)*rng.NormFloat64()
			x = []float64{x[0] + x[2] + ax/2, x[1] + x[3] + ay/2, x[2] + ax, x[3] + ay}
		}
		ys[t] = []float64{
			math.Round((x[0]+math.Sqrt(r)*rng.NormFloat64())*1e3) / 1e3,
			math.Round((x[1]+math.Sqrt(r)*rng.NormFloat64())*1e3) / 1e3,
		}
		fmt.Fprintf(&b, "  [%g, %g],\n", ys[t][0], ys[t][1])
	}
	b.WriteString(`]
latent x: real[T, 4]
x[0] ~ normal([0, 0, 1, 0.5], [10, 10, 1, 1])
for t in 1..T {
  x[t] ~ mvnormal(A @ x[t - 1], Q)
}
for t in 0..T {
  y[t] ~ normal(H @ x[t], 0.25)
}
`)
	b.WriteString(methods)
	return b.String(), ys
}

// TestTrackingKalmanLong: the tracking model over T = 2000 steps (8000
// latent elements, twice the dense joint's bound), which ep and exact solve
// on the band of the joint precision (half-bandwidth 7), gives the Kalman
// smoother's marginal means and variances and log p(y) (1e-9; the
// smoother is O(T d³) too).
func TestTrackingKalmanLong(t *testing.T) {
	const T = 2000
	src, ys := trackingModel(T, "infer ep\ninfer exact\n")
	m, err := fg.LoadBytes("tracking_long.fg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ms, Ps, logp := trackingKalman(ys)
	for _, label := range []string{"ep", "exact"} {
		rr := res.Get(label)
		if !rr.Status().OK() {
			t.Fatalf("%s: %s %s", label, rr.Status(), rr.Message())
		}
		bad := 0
		for ti := range ys {
			for k := 0; k < 4; k++ {
				mean, _ := rr.Mean("x", 4*ti+k)
				v, _ := rr.Variance("x", 4*ti+k)
				if !(math.Abs(mean-ms[ti].AtVec(k)) <= 1e-9) || !(math.Abs(v-Ps[ti].At(k, k)) <= 1e-9) {
					if bad++; bad <= 5 {
						t.Errorf("%s x[%d, %d] = %.12g ± %.12g, Kalman smoother %.12g ± %.12g", label, ti, k, mean, v, ms[ti].AtVec(k), Ps[ti].At(k, k))
					}
				}
			}
		}
		if z, ok := rr.LogZ(); !ok || !(math.Abs(z-logp) <= 1e-9) {
			t.Errorf("%s log Z = %.15g, Kalman log p(y) = %.15g (%.3g)", label, z, logp, z-logp)
		}
	}
}

// BenchmarkTracking: ep (one banded solve) on the tracking model over
// T = 10³ and 10⁴ steps; the cost is O(T d³), linear in T.
func BenchmarkTracking(b *testing.B) {
	for _, T := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			src, _ := trackingModel(T, "infer ep\n")
			m, err := fg.LoadBytes("tracking_bench.fg", []byte(src))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := m.Run(context.Background())
				if err != nil || !res.All()[0].Status().OK() {
					b.Fatal(err)
				}
			}
		})
	}
}
