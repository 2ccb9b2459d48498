package main

import (
	"encoding/csv"
	"log"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func f(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// writeCSV writes a header and n rows to c.out/name.
func writeCSV(c config, name string, header []string, n int, row func(int) []string) {
	fh, err := os.Create(filepath.Join(c.out, name))
	if err != nil {
		log.Fatal(err)
	}
	w := csv.NewWriter(fh)
	w.Write(header)
	for i := 0; i < n; i++ {
		w.Write(row(i))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		log.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		log.Fatal(err)
	}
}

// plotQuad draws, per model, the reported error estimate (solid) and the
// actual error (dashed) against the number of evaluations, log-log.
func plotQuad(rows []quadRow, path string) error {
	p := plot.New()
	p.Title.Text = "adaptive cubature: estimated (solid) and actual (dashed) error"
	p.X.Label.Text = "log-likelihood evaluations"
	p.Y.Label.Text = "error"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	var order []string
	by := map[string][]quadRow{}
	for _, r := range rows {
		if _, ok := by[r.model]; !ok {
			order = append(order, r.model)
		}
		by[r.model] = append(by[r.model], r)
	}
	for i, m := range order {
		est, act := make(plotter.XYs, 0), make(plotter.XYs, 0)
		for _, r := range by[m] {
			est = append(est, plotter.XY{X: float64(r.evals), Y: r.estimate})
			act = append(act, plotter.XY{X: float64(r.evals), Y: max(r.actual, 1e-16)})
		}
		le, err := plotter.NewLine(est)
		if err != nil {
			return err
		}
		la, err := plotter.NewLine(act)
		if err != nil {
			return err
		}
		col := plotter.DefaultLineStyle.Color
		if i < len(palette) {
			col = palette[i]
		}
		le.Color, la.Color = col, col
		la.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(le, la)
		p.Legend.Add(m, le)
	}
	p.Legend.Left = true
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
