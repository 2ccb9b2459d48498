package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/fg-infer/fg/infer/ep"
)

// Scores are the predictive scores of a posterior q(w) = N(m, diag v) on a
// labelled test stream: with t = xᵀw ~ N(xᵀm, Σ x_j² v_j) and
// p₊ = ∫ p(+1 | t) N(t) dt (the likelihood's Prob),
//
//	Accuracy = fraction of examples with sign(p₊ − ½) = y (p₊ = ½ counts as wrong),
//	LogLoss  = −(1/n) Σ log p(y | x) with p(−1 | x) = 1 − p₊.
type Scores struct {
	N                 int
	Accuracy, LogLoss float64
}

// Score streams a test source through the predictive distribution. A
// feature beyond the model's d contributes nothing (its weight has no
// posterior: the prior would be needed), so it is an error instead.
func Score(ctx context.Context, lik ep.Likelihood, mean, vr []float64, test Source) (*Scores, error) {
	rows, err := test.Open()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var sc Scores
	correct, loss := 0, 0.0
	for ; ; sc.N++ {
		if sc.N%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		y, idx, val, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		p, err := predict(lik, mean, vr, idx, val)
		if err != nil {
			return nil, fmt.Errorf("test example %d: %v", sc.N+1, err)
		}
		if y < 0 {
			p = 1 - p
		}
		if p > 0.5 {
			correct++
		}
		loss -= math.Log(p)
	}
	if sc.N > 0 {
		sc.Accuracy, sc.LogLoss = float64(correct)/float64(sc.N), loss/float64(sc.N)
	}
	return &sc, nil
}

// predict returns p(y = +1 | x) under q.
func predict(lik ep.Likelihood, mean, vr []float64, idx []int32, val []float64) (float64, error) {
	m, v := 0.0, 0.0
	for k, j := range idx {
		if int(j) >= len(mean) {
			return 0, fmt.Errorf("feature %d is beyond the %d features of the training data", j+1, len(mean))
		}
		m += val[k] * mean[j]
		v += val[k] * val[k] * vr[j]
	}
	p, ok := lik.Prob(m, v)
	if !ok {
		return 0, fmt.Errorf("%s is not a binary classifier", lik.Name())
	}
	if math.IsNaN(p) && m == 0 && v == 0 {
		return 0.5, nil // step at t = 0 exactly: Θ(0) = ½
	}
	return p, nil
}
