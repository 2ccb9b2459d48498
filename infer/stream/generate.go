package stream

import (
	"bufio"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/fg-infer/fg/internal/mathx"
)

// Generate writes n synthetic examples of a sparse probit model to w in
// libsvm format: d features, a true weight vector w* ~ N(0, 1) (seeded),
// each example with Poisson-like about nnz distinct features (uniform
// indices, written in random order, values N(0, 1)/√nnz) and label 1 with
// probability Φ(xᵀw*), else 0. Every 97th example has no features. Values
// print with %.17g so that they read back exactly. The benchmark command
// (experiments/stream_bench) and the tests use it.
func Generate(w *bufio.Writer, n, d, nnz int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	wt := make([]float64, d)
	for j := range wt {
		wt[j] = r.NormFloat64()
	}
	var buf []byte
	seen := map[int]bool{}
	scale := 1 / math.Sqrt(float64(max(1, nnz)))
	for i := range n {
		clear(seen)
		k := 0
		if i%97 != 96 {
			k = min(d, max(1, nnz+int(math.Round(r.NormFloat64()*math.Sqrt(float64(nnz))))))
		}
		buf = buf[:0]
		t := 0.0
		var feats []byte
		for len(seen) < k {
			j := r.IntN(d)
			if seen[j] {
				continue
			}
			seen[j] = true
			x := r.NormFloat64() * scale
			t += x * wt[j]
			feats = append(feats, ' ')
			feats = strconv.AppendInt(feats, int64(j+1), 10)
			feats = append(feats, ':')
			feats = strconv.AppendFloat(feats, x, 'g', 17, 64)
		}
		label := byte('0')
		if r.Float64() < mathx.Phi(t) {
			label = '1'
		}
		buf = append(append(buf, label), feats...)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
