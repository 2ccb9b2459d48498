package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/fg-infer/fg/stdlib/loss"
)

// plotCosts draws the total cost after each update for every scheme, with
// the offline optimum as a dashed line. The y range is clipped to
// [0.95·optimum, 1.05·initial cost] so that diverging runs do not hide the rest.
func plotCosts(out string, ds *dataset, l loss.Loss, runs []run, opt optimum, mapCost map[string]float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s (FF-EP, N = %d, d = %d)", ds.Name, l.Name(), len(ds.X), len(ds.X[0]))
	p.X.Label.Text = "mini-batch updates"
	p.Y.Label.Text = "total training cost at the posterior mean"
	for i, r := range runs {
		pts := make(plotter.XYs, len(r.Costs))
		for k, v := range r.Costs {
			pts[k].X, pts[k].Y = float64(k), v
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		ln.Color = plotutil.Color(i)
		ln.Width = vg.Points(1.2)
		p.Add(ln)
		p.Legend.Add(r.Scheme, ln)
	}
	f := plotter.NewFunction(func(float64) float64 { return opt.F })
	f.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(f)
	p.Legend.Add("optimum", f)
	if mp, ok := mapCost[ds.Name+"/map:"+l.Name()]; ok {
		fm := plotter.NewFunction(func(float64) float64 { return mp })
		fm.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(fm)
		p.Legend.Add("cost at MAP", fm)
	}
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0.95*opt.F, 1.05*runs[0].Costs[0]
	if opt.F <= 0 {
		p.Y.Min = -0.02 * runs[0].Costs[0]
	}
	p.X.Min, p.X.Max = 0, float64(len(runs[0].Costs)-1)
	name := fmt.Sprintf("%s_%s.png", ds.Name, sanitize(l.Name()))
	return p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(out, name))
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

func writeCSV(out string, runs []run, opts map[string]optimum) error {
	tr := [][]string{{"dataset", "loss", "scheme", "update", "cost"}}
	sum := [][]string{{"dataset", "loss", "scheme", "final_cost", "optimum", "optimum_method", "cost_at_map", "excess_per_example", "last_pass_fluct_per_example", "ms_per_batch", "skipped", "updates", "newton_iters", "status"}}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	for _, r := range runs {
		for k, v := range r.Costs {
			tr = append(tr, []string{r.Dataset, r.Loss, r.Scheme, strconv.Itoa(k), g(v)})
		}
		o := opts[r.Dataset+"/"+r.Loss]
		sum = append(sum, []string{r.Dataset, r.Loss, r.Scheme, g(r.Final), g(o.F), o.Method,
			g(opts[r.Dataset+"/map:"+r.Loss].F), g((r.Final - o.F) / float64(r.N)), g(r.Fluct), g(float64(r.SiteTime.Nanoseconds()) / 1e6),
			strconv.Itoa(r.Skipped), strconv.Itoa(r.Updates), g(r.Newton), r.Status.String()})
	}
	if err := write(filepath.Join(out, "trace.csv"), tr); err != nil {
		return err
	}
	if err := write(filepath.Join(out, "summary.csv"), sum); err != nil {
		return err
	}
	return writeOptima(filepath.Join(out, "optima.csv"), opts)
}

func writeOptima(path string, opts map[string]optimum) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := [][]string{{"dataset/loss", "cost", "method", "norm"}}
	for _, k := range keys {
		o := opts[k]
		var n float64
		for _, v := range o.X {
			n += v * v
		}
		rows = append(rows, []string{k, strconv.FormatFloat(o.F, 'g', 10, 64), o.Method, strconv.FormatFloat(math.Sqrt(n), 'g', 6, 64)})
	}
	return write(path, rows)
}

func write(path string, rows [][]string) error {
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
