package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// cell is the mean and standard deviation of one model at one (data set,
// rate) over the repetitions.
type cell struct {
	Dataset           string
	Rate              float64
	Model             string
	N                 int
	ErrMean, ErrSD    float64
	LogZMean, LogZSD  float64
	NLogZ             int // repetitions with a defined log Z
	Converged, Failed int
}

func summarize(rows []row) []cell {
	var out []cell
	idx := map[string]int{}
	for _, r := range rows {
		key := fmt.Sprintf("%s/%g/%s", r.Dataset, r.Rate, r.Model)
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, cell{Dataset: r.Dataset, Rate: r.Rate, Model: r.Model})
		}
		c := &out[i]
		c.N++
		if r.Status.String() == "converged" {
			c.Converged++
		}
		if math.IsNaN(r.Err) {
			c.Failed++
			continue
		}
		c.ErrMean += r.Err
		c.ErrSD += r.Err * r.Err
		if r.HasLogZ {
			c.NLogZ++
			c.LogZMean += r.LogZ
			c.LogZSD += r.LogZ * r.LogZ
		}
	}
	for i := range out {
		c := &out[i]
		c.ErrMean, c.ErrSD = meanSD(c.ErrMean, c.ErrSD, c.N-c.Failed)
		c.LogZMean, c.LogZSD = meanSD(c.LogZMean, c.LogZSD, c.NLogZ)
	}
	return out
}

func meanSD(s, s2 float64, n int) (float64, float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	m := s / float64(n)
	if n == 1 {
		return m, 0
	}
	return m, math.Sqrt(math.Max(s2/float64(n)-m*m, 0) * float64(n) / float64(n-1))
}

func printTable(w io.Writer, c config, sum []cell) {
	fmt.Fprintf(w, "GPC (Gaussian EP) vs STC (t-EP, nu = %g): step likelihood eps = %g, kernel eq. 44 with ell = %g*sqrt(D), theta0 = %g, theta2 = %g, theta3 = %g\n",
		c.nu, c.eps, c.h.LenScale, c.h.SigVar, c.h.Bias, c.h.Noise)
	fmt.Fprintf(w, "%-11s %5s | %-16s %-16s | %-18s %-18s | %s\n", "dataset", "flip", "GPC error %", "STC error %", "GPC log Z", "STC log Z", "converged GPC/STC")
	for i := 0; i+1 < len(sum); i += 2 {
		g, s := sum[i], sum[i+1]
		fmt.Fprintf(w, "%-11s %4.0f%% | %-16s %-16s | %-18s %-18s | %d/%d, %d/%d\n", g.Dataset, 100*g.Rate,
			pm(100*g.ErrMean, 100*g.ErrSD, 1), pm(100*s.ErrMean, 100*s.ErrSD, 1),
			pm(g.LogZMean, g.LogZSD, 2), pm(s.LogZMean, s.LogZSD, 2), g.Converged, g.N, s.Converged, s.N)
	}
}

func pm(m, sd float64, prec int) string {
	if math.IsNaN(m) {
		return "n/a"
	}
	return fmt.Sprintf("%.*f (%.*f)", prec, m, prec, sd)
}

func writeOutputs(out string, rows []row, sum []cell) error {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	res := [][]string{{"dataset", "flip_rate", "rep", "model", "test_error", "log_z", "has_log_z", "status", "sweeps", "skipped", "seconds", "mean_prob_true"}}
	for _, r := range rows {
		res = append(res, []string{r.Dataset, g(r.Rate), strconv.Itoa(r.Rep), r.Model, g(r.Err), g(r.LogZ),
			strconv.FormatBool(r.HasLogZ), r.Status.String(), strconv.Itoa(r.Sweeps), strconv.Itoa(r.Skipped), g(r.Seconds), g(r.MeanProb)})
	}
	sm := [][]string{{"dataset", "flip_rate", "model", "n", "error_mean", "error_sd", "log_z_mean", "log_z_sd", "n_log_z", "converged"}}
	for _, c := range sum {
		sm = append(sm, []string{c.Dataset, g(c.Rate), c.Model, strconv.Itoa(c.N), g(c.ErrMean), g(c.ErrSD), g(c.LogZMean), g(c.LogZSD), strconv.Itoa(c.NLogZ), strconv.Itoa(c.Converged)})
	}
	if err := writeCSV(filepath.Join(out, "results.csv"), res); err != nil {
		return err
	}
	if err := writeCSV(filepath.Join(out, "summary.csv"), sm); err != nil {
		return err
	}
	if err := plotMetric(filepath.Join(out, "error.png"), sum, "test error (%)", func(c cell) float64 { return 100 * c.ErrMean }); err != nil {
		return err
	}
	return plotMetric(filepath.Join(out, "logz.png"), sum, "approximate log evidence", func(c cell) float64 { return c.LogZMean })
}

func writeCSV(path string, recs [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(recs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// plotMetric draws the metric against the flip rate, one line per
// (data set, model); GPC solid, STC dashed.
func plotMetric(path string, sum []cell, ylabel string, val func(cell) float64) error {
	p := plot.New()
	p.Title.Text = "GPC (solid) vs STC (dashed) under label flips"
	p.X.Label.Text = "training labels flipped (%)"
	p.Y.Label.Text = ylabel
	series := map[string]plotter.XYs{}
	var keys []string
	for _, c := range sum {
		k := c.Dataset + " " + c.Model
		if _, ok := series[k]; !ok {
			keys = append(keys, k)
		}
		if v := val(c); !math.IsNaN(v) {
			series[k] = append(series[k], plotter.XY{X: 100 * c.Rate, Y: v})
		}
	}
	for i, k := range keys {
		if len(series[k]) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(series[k])
		if err != nil {
			return err
		}
		col := plotutil.Color(i / 2)
		ln.Color, pts.Color = col, col
		if i%2 == 1 {
			ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(ln, pts)
		p.Legend.Add(k, ln)
	}
	p.Legend.Top = true
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
