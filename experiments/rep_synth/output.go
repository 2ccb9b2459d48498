package main

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// cell summarises one (rate, method) over the repetitions.
type cell struct {
	Rate               float64
	Method             string
	Runs, Divergent    int
	ItersMean          float64 // over converged runs
	ErrConv, ErrConvSD float64 // test error over converged runs
	ErrAll             float64 // test error over all runs with a posterior
	RelaxedMean        float64
	nConv, nAll        int
}

func summarize(rs []run) []cell {
	var out []cell
	idx := map[string]int{}
	for _, r := range rs {
		key := fmt.Sprintf("%g/%s", r.Rate, r.Method)
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, cell{Rate: r.Rate, Method: r.Method})
		}
		c := &out[i]
		c.Runs++
		c.RelaxedMean += float64(r.Relaxed)
		if !math.IsNaN(r.TestErr) {
			c.ErrAll += r.TestErr
			c.nAll++
		}
		if r.Status != infer.Converged {
			c.Divergent++
			continue
		}
		c.nConv++
		c.ItersMean += float64(r.Iters)
		c.ErrConv += r.TestErr
		c.ErrConvSD += r.TestErr * r.TestErr
	}
	for i := range out {
		c := &out[i]
		c.RelaxedMean /= float64(c.Runs)
		c.ErrAll /= math.Max(1, float64(c.nAll))
		if c.nConv == 0 {
			c.ItersMean, c.ErrConv, c.ErrConvSD = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		k := float64(c.nConv)
		c.ItersMean /= k
		c.ErrConv /= k
		c.ErrConvSD = math.Sqrt(math.Max(0, c.ErrConvSD/k-c.ErrConv*c.ErrConv))
	}
	return out
}

func printTable(w io.Writer, cs []cell) {
	fmt.Fprintf(w, "%-6s %-11s %5s %10s %10s %16s %12s %10s\n", "noise", "alg", "runs", "divergent", "iters", "test err (conv)", "err (all)", "b>0 sites")
	for _, c := range cs {
		iters, conv := "—", "—"
		if c.Runs > c.Divergent { // some run converged
			iters = fmt.Sprintf("%.1f", c.ItersMean)
			conv = fmt.Sprintf("%.4f±%.4f", c.ErrConv, c.ErrConvSD)
		}
		fmt.Fprintf(w, "%5.0f%% %-11s %5d %10d %10s %16s %12.4f %10.1f\n",
			100*c.Rate, c.Method, c.Runs, c.Divergent, iters, conv, c.ErrAll, c.RelaxedMean)
	}
}

func writeCSV(dir string, rs []run, cs []cell) error {
	f, err := os.Create(filepath.Join(dir, "runs.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"noise", "seed", "method", "lengthscale", "iterations", "status", "test_error", "relaxed_sites", "final_R"})
	for _, r := range rs {
		last := math.NaN()
		if len(r.Trace) > 0 {
			last = r.Trace[len(r.Trace)-1]
		}
		w.Write([]string{g(r.Rate), strconv.Itoa(r.Seed), r.Method, g(r.Ell), strconv.Itoa(r.Iters), r.Status.String(), g(r.TestErr), strconv.Itoa(r.Relaxed), g(last)})
	}
	w.Flush()
	if err := f.Close(); err != nil {
		return err
	}
	f, err = os.Create(filepath.Join(dir, "summary.csv"))
	if err != nil {
		return err
	}
	w = csv.NewWriter(f)
	w.Write([]string{"noise", "method", "runs", "divergent", "iterations_mean_converged", "test_error_converged", "test_error_sd", "test_error_all", "relaxed_sites_mean"})
	for _, c := range cs {
		w.Write([]string{g(c.Rate), c.Method, strconv.Itoa(c.Runs), strconv.Itoa(c.Divergent), g(c.ItersMean), g(c.ErrConv), g(c.ErrConvSD), g(c.ErrAll), g(c.RelaxedMean)})
	}
	w.Flush()
	return f.Close()
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// plotSummary draws three bar panels (iterations, divergent runs, test
// error) with one bar group per method and one bar per noise level.
func plotSummary(path string, cs []cell) error {
	panels := []struct {
		title string
		val   func(cell) float64
	}{
		{"sweeps to R < 1e-3 (converged runs)", func(c cell) float64 { return c.ItersMean }},
		{"divergent runs", func(c cell) float64 { return float64(c.Divergent) }},
		{"test error (converged runs)", func(c cell) float64 { return c.ErrConv }},
	}
	img := vgimg.New(15*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 3, PadX: vg.Inch / 4}
	for k, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.NominalX(names()...)
		for j, rate := range ratesOf(cs) {
			var vals plotter.Values
			for _, m := range methods {
				v := 0.0
				for _, c := range cs {
					if c.Rate == rate && c.Method == m.Name && !math.IsNaN(pn.val(c)) {
						v = pn.val(c)
					}
				}
				vals = append(vals, v)
			}
			bars, err := plotter.NewBarChart(vals, vg.Points(18))
			if err != nil {
				return err
			}
			bars.Color = plotutil.Color(j)
			bars.Offset = vg.Points(float64(2*j-1) * 9)
			p.Add(bars)
			p.Legend.Add(fmt.Sprintf("%.0f%% flipped", 100*rate), bars)
		}
		p.Legend.Top = true
		p.Draw(tiles.At(dc, k, 0))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		return err
	}
	return f.Close()
}

func ratesOf(cs []cell) []float64 {
	var out []float64
	seen := map[float64]bool{}
	for _, c := range cs {
		if !seen[c.Rate] {
			seen[c.Rate] = true
			out = append(out, c.Rate)
		}
	}
	return out
}

func names() []string {
	var s []string
	for _, m := range methods {
		s = append(s, m.Name)
	}
	return s
}

// plotTrace draws R(iter) of every method on the first 20% data set.
func plotTrace(path string, rs []run) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("R(iter) = ||m_iter - m_iter-1||, %.0f%% flipped, seed 0", 100*rs[len(rs)-1].Rate)
	p.X.Label.Text = "sweep"
	p.Y.Label.Text = "R"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	for j, m := range methods {
		for _, r := range rs {
			if r.Rate != rs[len(rs)-1].Rate || r.Seed != 0 || r.Method != m.Name {
				continue
			}
			var xy plotter.XYs
			for i, v := range r.Trace {
				if v > 0 && !math.IsInf(v, 0) {
					xy = append(xy, plotter.XY{X: float64(i + 1), Y: v})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			l.Color = plotutil.Color(j)
			if l.Color == nil {
				l.Color = color.Black
			}
			p.Add(l)
			p.Legend.Add(m.Name, l)
		}
	}
	p.Legend.Top = true
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
