package main

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tmethod\tstart\tnlZ start\tlearned log ℓ\tlearned log sf\tnlZ\tΔnlZ vs GPML\ttest acc\tevals\tseconds\t")
	var gp float64
	for _, r := range rows {
		if r.Method == "gpml" {
			gp = r.NLZ
		}
		evals, sec := strconv.Itoa(r.Evals), fmt.Sprintf("%.3f", r.Seconds)
		if r.Method == "fg_ep@gpml" {
			evals, sec = "-", "-"
		}
		if r.Method == "gpml" {
			sec = "-"
		}
		start, nlz0 := fmt.Sprintf("(%.5g, %.5g)", r.Start[0], r.Start[1]), fmt.Sprintf("%.9f", r.StartNLZ)
		if r.Method == "fg_ep@gpml" {
			start, nlz0 = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.5f\t%.5f\t%.9f\t%+.2e\t%.3f\t%s\t%s\t\n",
			r.Case, r.Method, start, nlz0, r.Hyp[0], r.Hyp[1], r.NLZ, r.NLZ-gp, r.Acc, evals, sec)
	}
	tw.Flush()
}

func writeOutputs(dir string, rows []row) error {
	sum := [][]string{{"case", "method", "start_log_ell", "start_log_sf", "nlz_start", "log_ell", "log_sf", "nlz", "test_acc", "evals", "seconds"}}
	tr := [][]string{{"case", "method", "eval", "nlz"}}
	for _, r := range rows {
		sum = append(sum, []string{r.Case, r.Method, g(r.Start[0]), g(r.Start[1]), g(r.StartNLZ), g(r.Hyp[0]), g(r.Hyp[1]),
			g(r.NLZ), g(r.Acc), strconv.Itoa(r.Evals), g(r.Seconds)})
		for i, v := range r.Trace {
			tr = append(tr, []string{r.Case, r.Method, strconv.Itoa(i + 1), g(v)})
		}
	}
	if err := writeCSV(filepath.Join(dir, "summary.csv"), sum); err != nil {
		return err
	}
	if err := writeCSV(filepath.Join(dir, "trace.csv"), tr); err != nil {
		return err
	}
	return plotTraces(filepath.Join(dir, "trace.png"), rows)
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

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

// plotTraces draws nlZ − (best nlZ of the case) + 1e-9 against the
// evaluation (GPML: its recorded line-search iterates) on a log scale.
func plotTraces(path string, rows []row) error {
	p := plot.New()
	p.Title.Text = "evidence maximisation: nlZ − best nlZ of the case"
	p.X.Label.Text = "evaluation of log Z_EP (GPML: iteration of minimize)"
	p.Y.Label.Text = "nlZ − min nlZ (+1e-9)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	best := map[string]float64{}
	for _, r := range rows {
		for _, v := range r.Trace {
			if b, ok := best[r.Case]; !ok || v < b {
				best[r.Case] = v
			}
		}
	}
	palette := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}, {86, 180, 233, 255}, {230, 159, 0, 255}}
	k := 0
	for _, r := range rows {
		if len(r.Trace) == 0 {
			continue
		}
		xy := make(plotter.XYs, len(r.Trace))
		for i, v := range r.Trace {
			xy[i] = plotter.XY{X: float64(i + 1), Y: v - best[r.Case] + 1e-9}
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		ln.Color = palette[k%len(palette)]
		if r.Case != rows[0].Case {
			ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		k++
		p.Add(ln)
		name := r.Case + " " + r.Method
		if r.Method == "gpml" {
			name += " (per minimize iteration)"
		}
		p.Legend.Add(name, ln)
	}
	p.Legend.Top = true
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
