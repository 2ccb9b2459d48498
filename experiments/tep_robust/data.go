package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/stdlib"
)

// dataset is a train/test split with features z-scored by the training
// mean and population standard deviation.
type dataset struct {
	Name           string
	Xtr, Xte       *mat.Dense
	Ytr, Yte       []float64
	Ntrain, Nfeats int
}

// splits names the data/classification files of futami §5.3's data sets.
var splits = map[string][2]string{
	"pima":       {"pima_ripley_train.csv", "pima_ripley_test.csv"},
	"ionosphere": {"splits/ionosphere_train.csv", "splits/ionosphere_test.csv"},
	"thyroid":    {"splits/thyroid_train.csv", "splits/thyroid_test.csv"},
}

func loadDataset(name string) (*dataset, error) {
	f, ok := splits[name]
	if !ok {
		return nil, fmt.Errorf("unknown data set %q", name)
	}
	xtr, ytr, err := loadXY(f[0])
	if err != nil {
		return nil, err
	}
	xte, yte, err := loadXY(f[1])
	if err != nil {
		return nil, err
	}
	zscore(xtr, xte)
	n, d := xtr.Dims()
	return &dataset{Name: name, Xtr: xtr, Xte: xte, Ytr: ytr, Yte: yte, Ntrain: n, Nfeats: d}, nil
}

func loadXY(file string) (*mat.Dense, []float64, error) {
	path := datadir.Path("classification", file)
	x, err := stdlib.LoadCSV(nil, path, stdlib.CSVOptions{Exclude: []string{"label"}})
	if err != nil {
		return nil, nil, err
	}
	y, err := stdlib.LoadCSV(nil, path, stdlib.CSVOptions{Column: "label"})
	if err != nil {
		return nil, nil, err
	}
	return mat.NewDense(x.Rows, x.Cols, x.Data), y.Data, nil
}

// zscore standardises both matrices with the training columns' mean and
// population standard deviation (constant columns are left centred).
func zscore(tr, te *mat.Dense) {
	n, d := tr.Dims()
	for j := 0; j < d; j++ {
		var m, s float64
		for i := 0; i < n; i++ {
			m += tr.At(i, j)
		}
		m /= float64(n)
		for i := 0; i < n; i++ {
			s += (tr.At(i, j) - m) * (tr.At(i, j) - m)
		}
		s = math.Sqrt(s / float64(n))
		if s == 0 {
			s = 1
		}
		for _, x := range []*mat.Dense{tr, te} {
			r, _ := x.Dims()
			for i := 0; i < r; i++ {
				x.Set(i, j, (x.At(i, j)-m)/s)
			}
		}
	}
}

// flipLabels returns a copy of y with round(rate·n) labels, chosen uniformly
// without replacement by a PCG source seeded with seed, negated.
func flipLabels(y []float64, rate float64, seed uint64) []float64 {
	out := append([]float64(nil), y...)
	rng := rand.New(rand.NewPCG(seed, 0xf11b))
	k := int(math.Round(rate * float64(len(y))))
	for _, i := range rng.Perm(len(y))[:k] {
		out[i] = -out[i]
	}
	return out
}
