package stream

import (
	"bufio"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/fg-infer/fg/internal/mathx"
)

// Generate writes n synthetic examples of a sparse probit model to w in
// libsvm format: d features, a true weight vector w* ~ N(0, 1) (seeded),
// each example with Poisson-like about nnz distinct features (uniform
// indices in increasing order, values N(0, 1)/√nnz rounded to 6 significant
// digits, as real libsvm files carry short decimals) and label 1 with
// probability Φ(xᵀw*), else 0. Every 97th example has no features. Files with the same seed
// share w*; split selects independent examples (e.g. 1 train, 2 test). The benchmark command
// (experiments/stream_bench) and the tests use it.
func Generate(w *bufio.Writer, n, d, nnz int, seed, split uint64) error {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	wt := make([]float64, d)
	for j := range wt {
		wt[j] = r.NormFloat64()
	}
	r = rand.New(rand.NewPCG(seed, split))
	var buf []byte
	seen := map[int32]float64{}
	var idx []int32
	scale := 1 / math.Sqrt(float64(max(1, nnz)))
	for i := range n {
		clear(seen)
		k := 0
		if i%97 != 96 {
			k = min(d, max(1, nnz+int(math.Round(r.NormFloat64()*math.Sqrt(float64(nnz))))))
		}
		t := 0.0
		for len(seen) < k {
			j := int32(r.IntN(d))
			if _, dup := seen[j]; dup {
				continue
			}
			x, _ := strconv.ParseFloat(strconv.FormatFloat(r.NormFloat64()*scale, 'g', 6, 64), 64)
			seen[j] = x
			t += x * wt[j]
		}
		idx = slices.Sorted(maps.Keys(seen))
		buf = append(buf[:0], '0')
		if r.Float64() < mathx.Phi(t) {
			buf[0] = '1'
		}
		for _, j := range idx {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, seen[j], 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
