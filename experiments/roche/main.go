// Command roche reproduces the small-dataset experiment of
// roche-numerical-ep.txt §3.3: linear classifiers trained by fully
// factorised EP (infer/ffep.RunFF) over mini-batch factors
// f_b(θ) = exp(−β Σ_{k∈b} ℓ(y_k θᵀx_k)) with the logistic, hinge and quasi
// 0–1 losses, prior N(0, 25 I), s = 10, β = 1, five passes, comparing the
// LA, QLA, GQ and VQ moment schemes. After every mini-batch update it
// records the total training cost Σ_k ℓ(y_k mᵀx_k) at the posterior mean m,
// and compares it with an offline cost minimiser (gonum/optimize: BFGS for
// the logistic loss, Nelder–Mead for hinge and quasi 0–1), and with the
// training cost at the MAP point (minimiser of cost + ‖θ‖²/(2·25)), the mode
// of the posterior FF-EP approximates.
//
//	go run ./experiments/roche [-out DIR] [-passes 5] [-s 10] [-norm column|row]
//
// It prints a summary table and writes trace.csv, summary.csv and one PNG
// per dataset and loss into DIR (default out/roche, gitignored).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/stdlib/loss"
)

type config struct {
	out, data, datasets, norm string
	s, passes                 int
	beta, prior, eps, damping float64
	seed                      uint64
}

// run is one FF-EP run of one scheme on one dataset and loss.
type run struct {
	Dataset, Loss, Scheme string
	Costs                 []float64 // after each update, starting at the prior mean
	Final                 float64
	Fluct                 float64 // (max − min)/N of the costs over the last pass
	N                     int     // examples
	SiteTime              time.Duration
	Skipped, Updates      int
	Newton                float64
	Status                infer.Status
}

func main() {
	var c config
	flag.StringVar(&c.out, "out", filepath.Join("out", "roche"), "output directory")
	flag.StringVar(&c.data, "data", "", "classification data directory (default the repository's data/classification)")
	flag.StringVar(&c.datasets, "datasets", "wdbc_sklearn,ionosphere,breastcancer_wisc_orig", "comma-separated dataset names")
	flag.StringVar(&c.norm, "norm", "column", "unit-norm scaling of the centred features: row (each example) or column (each feature)")
	flag.IntVar(&c.s, "s", 10, "mini-batch size")
	flag.IntVar(&c.passes, "passes", 5, "passes over the mini-batches")
	flag.Float64Var(&c.beta, "beta", 1, "inverse temperature β")
	flag.Float64Var(&c.prior, "prior", 25, "prior variance of each coefficient")
	flag.Float64Var(&c.eps, "eps", 0.1, "quasi 0-1 loss parameter ε")
	flag.Float64Var(&c.damping, "damping", 1, "EP damping (1 = none, as in the paper)")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the mini-batch shuffle")
	flag.Parse()
	if err := experiment(c); err != nil {
		fmt.Fprintln(os.Stderr, "roche:", err)
		os.Exit(1)
	}
}

func experiment(c config) error {
	if c.data == "" {
		c.data = datadir.Path("classification")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	var runs []run
	opts := map[string]optimum{}
	for _, name := range strings.Split(c.datasets, ",") {
		ds, err := loadCSV(filepath.Join(c.data, name+".csv"), name)
		if err != nil {
			return err
		}
		if err := ds.preprocess(c.norm); err != nil {
			return err
		}
		rs, os, err := dataset1(c, ds)
		if err != nil {
			return err
		}
		runs = append(runs, rs...)
		for k, v := range os {
			opts[name+"/"+k] = v
		}
	}
	printTable(runs, opts)
	if err := writeCSV(c.out, runs, opts); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s\n", c.out)
	return nil
}

var schemes = []ffep.Scheme{{Kind: ffep.Laplace}, {Kind: ffep.QuickLaplace}, {Kind: ffep.GQ}, {Kind: ffep.VQ}}

// dataset1 runs every loss and scheme on one dataset.
func dataset1(c config, ds *dataset) ([]run, map[string]optimum, error) {
	losses := []loss.Loss{loss.Logistic{}, loss.Hinge{}, loss.Quasi01{Eps: c.eps}}
	opts := map[string]optimum{}
	for _, prior := range []float64{0, c.prior} {
		logi := minimiseLogistic(ds, prior)
		hin := minimiseDerivativeFree(ds, losses[1], prior, logi.X)
		q01 := minimiseDerivativeFree(ds, losses[2], prior, logi.X, hin.X)
		key := ""
		if prior > 0 { // report the training cost at the MAP point
			key = "map:"
			hin.F, q01.F = ds.cost(losses[1])(hin.X), ds.cost(losses[2])(q01.X)
			logi.F = ds.cost(losses[0])(logi.X)
		}
		opts[key+losses[0].Name()], opts[key+losses[1].Name()], opts[key+losses[2].Name()] = logi, hin, q01
	}
	var runs []run
	for _, l := range losses {
		var lr []run
		for _, sc := range schemes {
			r, err := runFFEP(c, ds, l, sc)
			if err != nil {
				return nil, nil, err
			}
			lr = append(lr, r)
		}
		opt := opts[l.Name()]
		for i := range lr {
			lr[i].Fluct = fluctuation(lr[i].Costs, len(lr[i].Costs)/c.passes) / float64(len(ds.X))
		}
		mc := map[string]float64{ds.Name + "/map:" + l.Name(): opts["map:"+l.Name()].F}
		if err := plotCosts(c.out, ds, l, lr, opt, mc); err != nil {
			return nil, nil, err
		}
		runs = append(runs, lr...)
	}
	return runs, opts, nil
}

func runFFEP(c config, ds *dataset, l loss.Loss, sc ffep.Scheme) (run, error) {
	d := len(ds.X[0])
	p := &ffep.Problem{PriorMean: make([]float64, d), PriorVar: make([]float64, d),
		Factors: ds.batches(l, c.s, c.beta, c.seed), Cost: ds.cost(l)}
	for i := range p.PriorVar {
		p.PriorVar[i] = c.prior
	}
	res, err := ffep.RunFF(context.Background(), p, &ffep.Settings{
		Scheme: sc, Passes: c.passes, Damping: c.damping, TrackCost: true,
	})
	if err != nil {
		return run{}, err
	}
	return run{Dataset: ds.Name, N: len(ds.X), Loss: l.Name(), Scheme: sc.String(), Costs: res.Cost,
		Final: res.Cost[len(res.Cost)-1], SiteTime: res.SiteTime, Skipped: res.Skipped,
		Updates: res.Updates, Newton: res.NewtonIters, Status: res.Status}, nil
}

// fluctuation is max − min over the last n costs.
func fluctuation(costs []float64, n int) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range costs[max(0, len(costs)-n):] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi - lo
}

func printTable(runs []run, opts map[string]optimum) {
	fmt.Println("costs are totals over the N training examples; excess = (final − optimum)/N; fluct = (max − min)/N over the last pass")
	fmt.Printf("%-23s %-13s %-13s %10s %10s %10s %8s %8s %9s %7s %6s\n",
		"dataset", "loss", "scheme", "final", "optimum", "at MAP", "excess", "fluct", "ms/batch", "skipped", "newton")
	for _, r := range runs {
		opt := opts[r.Dataset+"/"+r.Loss].F
		mp := opts[r.Dataset+"/map:"+r.Loss].F
		fmt.Printf("%-23s %-13s %-13s %10.3f %10.3f %10.3f %8.4f %8.4f %9.4f %7d %6.1f\n",
			r.Dataset, r.Loss, r.Scheme, r.Final, opt, mp, (r.Final-opt)/float64(r.N), r.Fluct,
			float64(r.SiteTime.Nanoseconds())/1e6, r.Skipped, r.Newton)
	}
}
