// Command goldstd measures fg's gold standards against closed forms and
// libDAI: adaptive cubature (infer/exact "quad") error and cost against the
// tolerance, importance sampling standard errors against actual errors,
// elliptical slice sampling on GP regression, and Gibbs sampling against
// libDAI's junction-tree marginals. It prints tables and writes CSV files and
// a PNG (estimated and actual error against evaluations) to -out.
//
//	go run ./experiments/goldstd [-out out/goldstd] [-quick]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/fg-infer/fg/infer/exact"
)

type config struct {
	out   string
	quick bool
	seed  uint64
}

func main() {
	var c config
	flag.StringVar(&c.out, "out", filepath.Join("out", "goldstd"), "output directory")
	flag.BoolVar(&c.quick, "quick", false, "smaller runs")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the samplers")
	flag.Parse()
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		log.Fatal(err)
	}
	quadRows := quadTable(c)
	if err := plotQuad(quadRows, filepath.Join(c.out, "quad_error.png")); err != nil {
		log.Fatal(err)
	}
	isTable(c)
	essTable(c)
	gibbsTable(c)
	fmt.Println("\nwrote", c.out)
}

// quadRow is one cubature run against the closed form.
type quadRow struct {
	model    string
	tol      float64
	status   string
	evals    int
	estimate float64 // reported error estimate
	actual   float64 // max of |Δlog Z|, |Δmean|/sd, |Δvar|/var
	seconds  float64
}

// actualError compares a result with the closed form of st.
func actualError(st site, lz float64, mean, vars []float64, got *exact.Result) float64 {
	e := math.Abs(got.LogZ - lz)
	for i := range mean {
		e = math.Max(e, math.Abs(got.Mean[i]-mean[i])/math.Sqrt(vars[i]))
		e = math.Max(e, math.Abs(got.Var[i]-vars[i])/vars[i])
	}
	return e
}

func quadTable(c config) []quadRow {
	type job struct {
		st   site
		tols []float64
	}
	jobs := []job{
		{newSite("probit d=2", 2, -1), []float64{1e-4, 1e-6, 1e-8, 1e-10}},
		{newSite("probit d=3", 3, -1), []float64{1e-3, 1e-4, 1e-5, 1e-6}},
		{newSite("step(0.1) d=2", 2, 0.1), []float64{1e-2, 3e-3, 1e-3, 3e-4, 1e-4}},
		{newSite("step(0) d=2", 2, 0), []float64{1e-2, 3e-3, 1e-3, 3e-4, 1e-4}},
		{newSite("step(0.1) d=3", 3, 0.1), []float64{3e-2, 1e-2, 3e-3}},
	}
	if c.quick {
		for i := range jobs {
			jobs[i].tols = jobs[i].tols[:2]
		}
	}
	var rows []quadRow
	fmt.Printf("adaptive cubature against closed forms (actual = max |Δlog Z|, |Δmean|/sd, |Δvar|/var)\n")
	fmt.Printf("%-15s %8s %-15s %10s %10s %10s %8s\n", "model", "tol", "status", "evals", "estimate", "actual", "seconds")
	for _, j := range jobs {
		lz, mean, vars := j.st.exact()
		for _, tol := range j.tols {
			res, err := exact.Run(context.Background(), exact.Problem{Mean: j.st.m, Cov: j.st.s, LogLik: j.st.loglik},
				exact.Settings{Tol: tol, MaxEval: 20_000_000})
			if err != nil {
				log.Fatal(err)
			}
			r := quadRow{model: j.st.name, tol: tol, status: res.Status.String(), evals: res.Evaluations,
				estimate: res.ErrEstimate, actual: actualError(j.st, lz, mean, vars, res), seconds: res.Runtime.Seconds()}
			rows = append(rows, r)
			fmt.Printf("%-15s %8.0e %-15s %10d %10.2e %10.2e %8.2f\n", r.model, r.tol, r.status, r.evals, r.estimate, r.actual, r.seconds)
		}
	}
	writeCSV(c, "quad.csv", []string{"model", "tol", "status", "evals", "estimate", "actual", "seconds"}, len(rows), func(i int) []string {
		r := rows[i]
		return []string{r.model, f(r.tol), r.status, fmt.Sprint(r.evals), f(r.estimate), f(r.actual), f(r.seconds)}
	})
	return rows
}

func isTable(c config) {
	ns := []int{10_000, 100_000, 1_000_000, 10_000_000}
	if c.quick {
		ns = ns[:3]
	}
	var rows [][]string
	for _, st := range []site{newSite("step(0.1) d=2", 2, 0.1), narrowSite()} {
		lz, mean, vars := st.exact()
		fmt.Printf("\nimportance sampling, %s: standard errors against actual errors\n", st.name)
		fmt.Printf("%-9s %10s %10s %12s %12s %12s %12s %8s\n", "proposal", "samples", "weightESS", "logZ err", "logZ SE", "mean0 err", "mean0 SE", "seconds")
		for _, prop := range []string{"prior", "adaptive"} {
			for _, n := range ns {
				res, err := exact.Run(context.Background(), exact.Problem{Mean: st.m, Cov: st.s, LogLik: st.loglik},
					exact.Settings{Method: "is", Proposal: prop, Samples: n, Seed: c.seed, Workers: 2})
				if err != nil {
					log.Fatal(err)
				}
				rows = append(rows, []string{st.name, prop, fmt.Sprint(n), f(res.WeightESS), f(res.LogZ - lz), f(res.LogZErr), f(res.Mean[0] - mean[0]), f(res.MeanErr[0]), f(res.Var[0] - vars[0]), f(res.VarErr[0]), f(res.Runtime.Seconds())})
				fmt.Printf("%-9s %10d %10.0f %12.2e %12.2e %12.2e %12.2e %8.2f\n", prop, n, res.WeightESS, res.LogZ-lz, res.LogZErr, res.Mean[0]-mean[0], res.MeanErr[0], res.Runtime.Seconds())
			}
		}
	}
	writeCSV(c, "is.csv", []string{"model", "proposal", "samples", "weight_ess", "logz_err", "logz_se", "mean0_err", "mean0_se", "var0_err", "var0_se", "seconds"}, len(rows), func(i int) []string { return rows[i] })
}
