package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/stdlib/loss"
)

// dataset is a binary classification set: rows X (with the baseline column
// appended last) and labels Y in {−1, +1}.
type dataset struct {
	Name string
	X    [][]float64
	Y    []float64
}

// loadCSV reads a data/classification file: a header, numeric
// feature columns, and a last column "label" in {−1, +1}.
func loadCSV(path, name string) (*dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	ds := &dataset{Name: name}
	for r, rec := range recs[1:] {
		row := make([]float64, len(rec))
		for j, s := range rec {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %w", path, r+2, j+1, err)
			}
			row[j] = v
		}
		ds.X = append(ds.X, row[:len(row)-1])
		ds.Y = append(ds.Y, row[len(row)-1])
	}
	return ds, nil
}

// preprocess applies roche §3.1: subtract the mean of every feature across
// examples, normalise to unit Euclidean norm, and append a constant
// baseline 1. norm = "row" scales each centred example x_k to ‖x_k‖ = 1
// (the reading under which the prior N(0, 25 I) is on the scale of the
// margins); norm = "column" scales each centred feature column instead.
func (ds *dataset) preprocess(norm string) error {
	n, d := len(ds.X), len(ds.X[0])
	mean := make([]float64, d)
	for _, x := range ds.X {
		for j, v := range x {
			mean[j] += v / float64(n)
		}
	}
	for _, x := range ds.X {
		for j := range x {
			x[j] -= mean[j]
		}
	}
	switch norm {
	case "row":
		for _, x := range ds.X {
			scale(x, 1/l2(x))
		}
	case "column":
		for j := range d {
			var s float64
			for _, x := range ds.X {
				s += x[j] * x[j]
			}
			for _, x := range ds.X {
				x[j] /= math.Sqrt(s)
			}
		}
	default:
		return fmt.Errorf("unknown -norm %q (row or column)", norm)
	}
	for k := range ds.X {
		ds.X[k] = append(ds.X[k], 1)
	}
	return nil
}

func l2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	if s == 0 {
		return 1
	}
	return math.Sqrt(s)
}

func scale(x []float64, c float64) {
	for i := range x {
		x[i] *= c
	}
}

// batches shuffles the examples once (seeded) and cuts them into
// mini-batch factors of s examples, f_b(θ) = exp(−β Σ_{k∈b} ℓ(y_k θᵀx_k)).
func (ds *dataset) batches(l loss.Loss, s int, beta float64, seed uint64) []ffep.Potential {
	idx := rand.New(rand.NewPCG(seed, 7)).Perm(len(ds.X))
	var out []ffep.Potential
	for lo := 0; lo < len(idx); lo += s {
		b := &loss.Batch{Beta: beta, Loss: l}
		for _, k := range idx[lo:min(lo+s, len(idx))] {
			b.X = append(b.X, ds.X[k])
			b.Y = append(b.Y, ds.Y[k])
		}
		out = append(out, b)
	}
	return out
}

// cost is the total training cost Σ_k ℓ(y_k θᵀx_k) over all examples.
func (ds *dataset) cost(l loss.Loss) func([]float64) float64 {
	all := &loss.Batch{X: ds.X, Y: ds.Y, Beta: 1, Loss: l}
	return all.Cost
}
