package learn

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// gpmlData reads train.csv (features, then the label column) of a case in
// data/reference/gpml.
func gpmlData(t testing.TB, name, file string) (*mat.Dense, []float64) {
	t.Helper()
	f, err := os.Open(datadir.Path("reference", "gpml", name, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	d := len(recs[0]) - 1
	X := mat.NewDense(len(recs)-1, d, nil)
	y := make([]float64, len(recs)-1)
	for i, r := range recs[1:] {
		for j, s := range r {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			if j < d {
				X.Set(i, j, v)
			} else {
				y[i] = v
			}
		}
	}
	return X, y
}

// seBuilder is the GPML covSEiso model in x = (log ℓ, log sf[, ε]):
// K = SE(ℓ, sf²), θ = (e^{x0}, e^{2 x1}), dθ/dx = (ℓ, 2 sf²); with a third
// parameter, every site is Step{ε = x2}.
func seBuilder(X *mat.Dense, y []float64, lik func(x []float64) ep.Likelihood) Builder {
	return func(x []float64) ([]*Block, error) {
		k := Kernel{Kind: kernel.KindSE, Hyper: []float64{math.Exp(x[0]), math.Exp(2 * x[1])}}
		K, err := k.Gram(X)
		if err != nil {
			return nil, err
		}
		g, err := k.Grads(X)
		if err != nil {
			return nil, err
		}
		g[0].ScaleSym(k.Hyper[0], g[0])
		g[1].ScaleSym(2*k.Hyper[1], g[1])
		b := &Block{Problem: &ep.Problem{Cov: K}, DCov: make([]*mat.SymDense, len(x))}
		b.DCov[0], b.DCov[1] = g[0], g[1]
		l := lik(x)
		for i, yi := range y {
			b.Problem.Sites = append(b.Problem.Sites, ep.Site{Lik: l, Y: yi, Index: i})
		}
		if len(x) == 3 {
			b.DLik = make([][]float64, 3)
			b.DLik[2] = ones(len(y))
		}
		return []*Block{b}, nil
	}
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// tight are EP settings for gradient checks: the fixed point to 1e-12.
var tight = ep.Settings{Settings: infer.Settings{Tol: 1e-12, MaxIter: 2000}}

// evidence runs EP cold on the builder's blocks at x and returns log Z_EP
// and Gradient.
func evidence(t testing.TB, build Builder, x []float64) (float64, []float64) {
	t.Helper()
	blocks, err := build(x)
	if err != nil {
		t.Fatal(err)
	}
	var lz float64
	grad := make([]float64, len(x))
	for _, b := range blocks {
		res, err := ep.Run(context.Background(), b.Problem, tight)
		if err != nil || !res.HasLogZ {
			t.Fatalf("EP at %v: err %v, status %v %s", x, err, res.Status, res.Message)
		}
		g, err := Gradient(res, b)
		if err != nil {
			t.Fatal(err)
		}
		lz += res.LogZ
		for k := range g {
			grad[k] += g[k]
		}
	}
	return lz, grad
}

// centralFD returns (f(x + h e_k) − f(x − h e_k))/(2h) for every k.
func centralFD(t testing.TB, build Builder, x []float64, h float64) []float64 {
	out := make([]float64, len(x))
	for k := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[k] += h
		xm[k] -= h
		fp, _ := evidence(t, build, xp)
		fm, _ := evidence(t, build, xm)
		out[k] = (fp - fm) / (2 * h)
	}
	return out
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Abs(b), 1e-3)
}
