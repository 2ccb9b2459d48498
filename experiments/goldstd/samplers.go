package main

import (
	"context"
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/mcmc"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

// gpRegression is GP regression (SE kernel, unit length scale and variance,
// noise 0.3) on n inputs in [−2, 2] with its closed-form posterior
// mean K(K + s2 I)⁻¹y and variances diag(K − K(K + s2 I)⁻¹K).
func gpRegression(n int) (mcmc.Problem, []float64, []float64) {
	const s2 = 0.3
	k := mat.NewSymDense(n, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		xi := -2 + 4*float64(i)/float64(n-1)
		y[i] = math.Sin(2*xi) + 0.3*math.Cos(7*xi)
		for j := 0; j < n; j++ {
			xj := -2 + 4*float64(j)/float64(n-1)
			k.SetSym(i, j, math.Exp(-(xi-xj)*(xi-xj)/2))
		}
		k.SetSym(i, i, k.At(i, i)+1e-8)
	}
	ky := mat.NewSymDense(n, nil)
	ky.CopySym(k)
	for i := 0; i < n; i++ {
		ky.SetSym(i, i, ky.At(i, i)+s2)
	}
	var ch mat.Cholesky
	if !ch.Factorize(ky) {
		log.Fatal("K + s2 I not PD")
	}
	var a, m mat.VecDense
	if err := ch.SolveVecTo(&a, mat.NewVecDense(n, y)); err != nil {
		log.Fatal(err)
	}
	m.MulVec(k, &a)
	var kk mat.Dense
	if err := ch.SolveTo(&kk, k); err != nil {
		log.Fatal(err)
	}
	vars := make([]float64, n)
	for i := 0; i < n; i++ {
		vars[i] = k.At(i, i) - mat.Dot(mat.DenseCopyOf(k).RowView(i), kk.ColView(i))
	}
	ll := func(f []float64) float64 {
		s := 0.0
		for i, v := range f {
			s -= 0.5 * (y[i] - v) * (y[i] - v) / s2
		}
		return s
	}
	return mcmc.Problem{Mean: make([]float64, n), Cov: k, LogLik: ll}, m.RawVector().Data, vars
}

func essTable(c config) {
	fmt.Printf("\nelliptical slice sampling on GP regression (4 chains): largest |error|/SE over the latents\n")
	fmt.Printf("%5s %8s %10s %10s %10s %10s %8s\n", "n", "samples", "max|z|mean", "max|z|var", "min ESS", "max R-hat", "seconds")
	var rows [][]string
	for _, n := range []int{10, 50} {
		p, mean, vars := gpRegression(n)
		for _, s := range []int{1000, 10000} {
			if c.quick && s > 1000 {
				continue
			}
			res, err := mcmc.RunESS(context.Background(), p, mcmc.Settings{Samples: s, Seed: c.seed})
			if err != nil {
				log.Fatal(err)
			}
			zm, zv, ess, rh := 0.0, 0.0, math.Inf(1), 0.0
			for i := range mean {
				zm = math.Max(zm, math.Abs(res.Mean[i]-mean[i])/res.MeanSE[i])
				zv = math.Max(zv, math.Abs(res.Var[i]-vars[i])/res.VarSE[i])
				ess = math.Min(ess, res.ESS[i])
				rh = math.Max(rh, res.RHat[i])
			}
			rows = append(rows, []string{fmt.Sprint(n), fmt.Sprint(s), f(zm), f(zv), f(ess), f(rh), f(res.Runtime.Seconds())})
			fmt.Printf("%5d %8d %10.2f %10.2f %10.0f %10.4f %8.2f\n", n, s, zm, zv, ess, rh, res.Runtime.Seconds())
		}
	}
	writeCSV(c, "ess.csv", []string{"n", "samples", "max_z_mean", "max_z_var", "min_ess", "max_rhat", "seconds"}, len(rows), func(i int) []string { return rows[i] })
}

func gibbsTable(c config) {
	fmt.Printf("\nGibbs (4 chains, systematic, Rao–Blackwellised) against libDAI JTREE marginals\n")
	fmt.Printf("%-26s %8s %10s %10s %10s %10s %8s\n", "model", "samples", "max|err|", "max|z|", "min ESS", "max R-hat", "seconds")
	var rows [][]string
	for _, name := range []string{"ising_grid4x4_seed1", "ising_full10_seed4", "ising_grid10x10_w1_seed2"} {
		g, err := graph.ReadLibDAI(datadir.Path("reference", "libdai", name+".fg"), factor.Table{})
		if err != nil {
			log.Fatal(err)
		}
		ref := readJTree(datadir.Path("reference", "libdai", name+".jtree.tsv"))
		for _, s := range []int{2000, 20000} {
			if c.quick && s > 2000 {
				continue
			}
			res, err := mcmc.RunGibbs(context.Background(), g, mcmc.GibbsSettings{Samples: s, Seed: c.seed})
			if err != nil {
				log.Fatal(err)
			}
			e, z, ess, rh := 0.0, 0.0, math.Inf(1), 0.0
			for v := range ref {
				d := math.Abs(res.Probs[v][1] - ref[v][1])
				e, z = math.Max(e, d), math.Max(z, d/res.ProbsSE[v][1])
				ess, rh = math.Min(ess, res.ESS[v][1]), math.Max(rh, res.RHat[v][1])
			}
			rows = append(rows, []string{name, fmt.Sprint(s), f(e), f(z), f(ess), f(rh), f(res.Runtime.Seconds())})
			fmt.Printf("%-26s %8d %10.2e %10.2f %10.0f %10.4f %8.2f\n", name, s, e, z, ess, rh, res.Runtime.Seconds())
		}
	}
	writeCSV(c, "gibbs.csv", []string{"model", "samples", "max_abs_err", "max_z", "min_ess", "max_rhat", "seconds"}, len(rows), func(i int) []string { return rows[i] })
}

// readJTree reads the "var LABEL p0 p1 ..." lines of a libDAI result.
func readJTree(path string) [][]float64 {
	r, err := refdata.ReadLibDAI(path)
	if err != nil {
		log.Fatal(err)
	}
	return r.InOrder()
}
