package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// summary aggregates the runs of one (condition, method).
type summary struct {
	cond, method    string
	n, notConverged int
	meanErr, seErr  float64
	relaxed, meanB  float64
	errs            []float64
}

func summarise(c config, runs []run) []summary {
	var out []summary
	index := map[[2]string]int{}
	for _, r := range runs {
		k := [2]string{r.cond, r.method}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, summary{cond: r.cond, method: r.method})
		}
		s := &out[i]
		s.n++
		s.errs = append(s.errs, r.err)
		s.meanErr += r.err
		s.relaxed += r.relaxed
		s.meanB += r.meanB
		if !r.converged {
			s.notConverged++
		}
	}
	for i := range out {
		s := &out[i]
		n := float64(s.n)
		s.meanErr /= n
		s.relaxed /= n
		s.meanB /= n
		v := 0.0
		for _, e := range s.errs {
			v += (e - s.meanErr) * (e - s.meanErr)
		}
		if s.n > 1 {
			s.seErr = math.Sqrt(v / (n - 1) / n)
		}
	}
	return out
}

func write(c config, runs []run) error {
	sums := summarise(c, runs)
	fmt.Printf("Qi & Guo §6.2 on the C60 dome: %d repetitions, J_ij ~ |N(m, v)| with v a %s, tol %g, max %d passes\n\n",
		c.reps, c.reading, c.tol, c.maxIter)
	fmt.Printf("%-8s %-20s %12s %10s %14s %10s\n", "coupling", "method", "mean |err|", "s.e.", "not converged", "b>0 edges")
	for _, s := range sums {
		rel := "-"
		if strings.HasPrefix(s.method, "RBP") {
			rel = fmt.Sprintf("%.1f%%", 100*s.relaxed)
		}
		fmt.Printf("%-8s %-20s %12.5f %10.5f %8d / %-3d %10s\n", s.cond, s.method, s.meanErr, s.seErr, s.notConverged, s.n, rel)
	}
	if err := writeRuns(filepath.Join(c.out, "runs.csv"), runs); err != nil {
		return err
	}
	if err := writeSummary(filepath.Join(c.out, "summary.csv"), sums); err != nil {
		return err
	}
	if err := plotErrors(filepath.Join(c.out, "errors.png"), sums); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s/{runs.csv,summary.csv,errors.png}\n", c.out)
	return nil
}

func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ff(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }

func writeRuns(path string, runs []run) error {
	rows := [][]string{{"coupling", "method", "rep", "mean_abs_err", "converged", "passes", "frac_relaxed", "mean_b"}}
	for _, r := range runs {
		rows = append(rows, []string{r.cond, r.method, strconv.Itoa(r.rep), ff(r.err), strconv.FormatBool(r.converged),
			strconv.Itoa(r.iters), ff(r.relaxed), ff(r.meanB)})
	}
	return writeCSV(path, rows)
}

func writeSummary(path string, sums []summary) error {
	rows := [][]string{{"coupling", "method", "runs", "mean_abs_err", "se", "not_converged", "frac_relaxed", "mean_b"}}
	for _, s := range sums {
		rows = append(rows, []string{s.cond, s.method, strconv.Itoa(s.n), ff(s.meanErr), ff(s.seErr),
			strconv.Itoa(s.notConverged), ff(s.relaxed), ff(s.meanB)})
	}
	return writeCSV(path, rows)
}

// plotErrors draws one box plot of per-run errors per method, weak and
// strong side by side (the layout of the paper's Figure 9).
func plotErrors(path string, sums []summary) error {
	p := plot.New()
	p.Title.Text = "C60 dome: mean |p_exact - p_approx| per run"
	p.Y.Label.Text = "mean absolute marginal error"
	var names []string
	w := vg.Points(14)
	for i, s := range sums {
		box, err := plotter.NewBoxPlot(w, float64(i), plotter.Values(s.errs))
		if err != nil {
			return err
		}
		p.Add(box)
		names = append(names, s.cond+"\n"+s.method)
	}
	p.NominalX(names...)
	return p.Save(vg.Length(40+30*len(sums))*vg.Millimeter, 120*vg.Millimeter, path)
}
