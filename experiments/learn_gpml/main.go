// Command learn_gpml reproduces GPML's hyperparameter optimisation on two
// reference cases (data/reference/gpml/*_opt100): starting from the
// case's log hyperparameters (log ℓ, log sf) of covSEiso with the probit
// likelihood, fg learns them by maximising log Z_EP (infer/run.Learn:
// exact EP gradients, L-BFGS / BFGS / CG) and compares the final
// nlZ = −log Z_EP and the learned model's test accuracy with GPML minimize's
// (conjugate gradients, 100 evaluations, infEP tolerance 1e-4).
// It also evaluates fg's EP at GPML's learned point, prints the table and
// writes summary.csv, trace.csv and trace.png into -out. A second table
// learns (log ℓ, ε) of the step likelihood on the -step cases (no GPML
// reference: GPML has no step likelihood), with test accuracy before and
// after (step.csv).
//
//	go run ./experiments/learn_gpml -out out/learn_gpml
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

// gpmlCase is a reference case with GPML's optimisation result.
type gpmlCase struct {
	Name          string // folder under reference/gpml
	Start         [2]float64
	GPMLHyp       [2]float64
	GPMLNLZ       float64
	GPMLAcc       float64
	GPMLEvals     int
	GPMLTrace     []float64
	GPMLStartNLZ  float64
	Ntrain, Ntest int
}

func main() {
	out := flag.String("out", "out/learn_gpml", "output directory (CSV, PNG)")
	cases := flag.String("cases", "toy2d_se_probit,pima_ripley_se_probit", "comma-separated reference cases (each needs NAME_opt100)")
	methods := flag.String("methods", "lbfgs,bfgs,cg", "comma-separated optimisers")
	steps := flag.String("step", "toy2d_se_step01", "comma-separated step-likelihood cases on which to learn (log ℓ, ε), e.g. toy2d_se_step01,wdbc_se_step005; empty for none")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	var rows []row
	for _, name := range strings.Split(*cases, ",") {
		c, err := loadCase(name)
		if err != nil {
			log.Fatal(err)
		}
		rs, err := runCase(ctx, c, strings.Split(*methods, ","))
		if err != nil {
			log.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	printTable(os.Stdout, rows)
	if err := writeOutputs(*out, rows); err != nil {
		log.Fatal(err)
	}
	var srows []stepRow
	for _, name := range strings.Split(*steps, ",") {
		if name == "" {
			continue
		}
		r, err := runStep(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		srows = append(srows, r)
	}
	if len(srows) > 0 {
		printStepTable(os.Stdout, srows)
		if err := writeCSV(filepath.Join(*out, "step.csv"), stepCSV(srows)); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("\nwrote %s/{summary.csv,trace.csv,trace.png,step.csv}\n", *out)
}
