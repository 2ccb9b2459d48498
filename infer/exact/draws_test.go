package exact

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestDrawsMoments: draws of a 2-D step-likelihood posterior (a skewed,
// discontinuous density) reproduce the quadrature's posterior mean and
// variances within 5 Monte Carlo standard errors, and P(w0 > 0) agrees
// with Expect of the indicator.
func TestDrawsMoments(t *testing.T) {
	x := [][2]float64{{-2, 1}, {-1, 2}, {1, -1}, {2, -2}, {3, 1}}
	y := []float64{-1, -1, 1, 1, -1}
	p := Problem{Mean: []float64{0, 0}, Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1}),
		LogLik: func(w []float64) float64 {
			s := 0.0
			for i, xi := range x {
				if y[i]*(xi[0]*w[0]+xi[1]*w[1]) > 0 {
					s += math.Log(0.8)
				} else {
					s += math.Log(0.2)
				}
			}
			return s
		}}
	res, err := Run(context.Background(), p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	d, err := res.Draws(n, 1)
	if err != nil || len(d) != n {
		t.Fatalf("Draws: %d draws, %v", len(d), err)
	}
	pos, _, err := res.Expect(context.Background(), []func([]float64) float64{
		func(w []float64) float64 { return step01(w[0]) }})
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 2; j++ {
		col := make([]float64, n)
		for i, w := range d {
			col[i] = w[j]
		}
		m, v := stat.MeanVariance(col, nil)
		if se := math.Sqrt(res.Var[j] / n); !(math.Abs(m-res.Mean[j]) <= 5*se) {
			t.Errorf("w[%d]: draws mean %.4f, quadrature %.4f (se %.4f)", j, m, res.Mean[j], se)
		}
		if !(math.Abs(v-res.Var[j]) <= 5*res.Var[j]*math.Sqrt(2.0/n)+0.01*res.Var[j]) {
			t.Errorf("w[%d]: draws var %.4f, quadrature %.4f", j, v, res.Var[j])
		}
		if j == 0 {
			frac := 0.0
			for _, c := range col {
				frac += step01(c)
			}
			frac /= n
			if se := math.Sqrt(pos[0] * (1 - pos[0]) / n); !(math.Abs(frac-pos[0]) <= 5*se) {
				t.Errorf("P(w0 > 0): draws %.4f, Expect %.4f (se %.4f)", frac, pos[0], se)
			}
		}
	}
	if _, err := (&Result{}).Draws(10, 1); err == nil {
		t.Error("Draws on an empty result: no error")
	}
}

func step01(x float64) float64 {
	if x > 0 {
		return 1
	}
	return 0
}
