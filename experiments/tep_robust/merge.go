package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// mergeRuns prints one table for the per-data-set runs in -out/<data> and
// plots them together into -out.
func mergeRuns(c config) error {
	var all []cell
	for _, d := range c.datasets {
		cs, err := readSummary(filepath.Join(c.out, d, "summary.csv"))
		if err != nil {
			return err
		}
		all = append(all, cs...)
	}
	printTable(os.Stdout, c, all)
	if err := plotMetric(filepath.Join(c.out, "error.png"), all, "test error (%)", func(c cell) float64 { return 100 * c.ErrMean }); err != nil {
		return err
	}
	return plotMetric(filepath.Join(c.out, "logz.png"), all, "approximate log evidence", func(c cell) float64 { return c.LogZMean })
}

// readSummary reads a summary.csv written by writeOutputs.
func readSummary(path string) ([]cell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []cell
	for i, r := range recs[1:] {
		if len(r) != 10 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 10", path, i+2, len(r))
		}
		var c cell
		var fs [5]float64
		for j, k := range []int{1, 4, 5, 6, 7} {
			if fs[j], err = strconv.ParseFloat(r[k], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+2, err)
			}
		}
		c.Dataset, c.Model = r[0], r[2]
		c.Rate, c.ErrMean, c.ErrSD, c.LogZMean, c.LogZSD = fs[0], fs[1], fs[2], fs[3], fs[4]
		c.N, _ = strconv.Atoi(r[3])
		c.NLogZ, _ = strconv.Atoi(r[8])
		c.Converged, _ = strconv.Atoi(r[9])
		out = append(out, c)
	}
	return out, nil
}
