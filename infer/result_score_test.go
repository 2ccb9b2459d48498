package infer

import (
	"math"
	"testing"
)

// TestScoreLabelEncodings: spins −1/+1 and 0/1 labels score the same;
// the reference is worked out by hand (one error of three, at p = 0.3 for
// a positive label; log p = log 0.8 + log 0.3 + log 0.6).
func TestScoreLabelEncodings(t *testing.T) {
	p := &Prediction{Prob: []float64{0.2, 0.3, 0.6}}
	want := (math.Log(0.8) + math.Log(0.3) + math.Log(0.6)) / 3
	for _, y := range [][]float64{{-1, 1, 1}, {0, 1, 1}} {
		s := p.Score(y)
		if s.N != 3 || s.ErrorRate != 1.0/3 || !(math.Abs(s.MeanLogProb-want) <= 1e-15) {
			t.Errorf("labels %v: %+v, want 1/3 errors and mean log p %g", y, *s, want)
		}
	}
}
