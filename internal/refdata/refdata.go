// Package refdata reads the peer-system reference files in data/reference
// (GPML's summary.tsv and numeric CSV outputs, libDAI's result files) for
// tests and experiments.
package refdata

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Summary reads a GPML summary.tsv: one `key TAB value` per line.
func Summary(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kv := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "\t"); ok {
			kv[k] = strings.TrimSpace(v)
		}
	}
	return kv, sc.Err()
}

// Columns reads a numeric CSV with a header line into named columns.
func Columns(path string) (map[string][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	cols := map[string][]float64{}
	for i, rec := range recs[1:] {
		for j, h := range recs[0] {
			x, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %s: %w", path, i+2, h, err)
			}
			cols[h] = append(cols[h], x)
		}
	}
	return cols, nil
}

// LibDAI is one libDAI output file of data/reference/libdai
// (reference/README.md): log Z, the passes libDAI made, and every
// variable's marginal keyed by its libDAI label.
type LibDAI struct {
	LogZ      float64
	Iters     int
	Marginals map[string][]float64
	Labels    []string // variable labels in file order
}

// InOrder returns the marginals in file order.
func (r *LibDAI) InOrder() [][]float64 {
	out := make([][]float64, len(r.Labels))
	for i, l := range r.Labels {
		out[i] = r.Marginals[l]
	}
	return out
}

// ReadLibDAI reads a libDAI reference .tsv (`logZ`, `iters`, ... lines, then
// `var LABEL p0 p1 ...` lines, tab-separated).
func ReadLibDAI(path string) (*LibDAI, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &LibDAI{Marginals: map[string][]float64{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Split(sc.Text(), "\t")
		var err error
		switch fs[0] {
		case "logZ":
			r.LogZ, err = strconv.ParseFloat(fs[1], 64)
		case "iters":
			r.Iters, err = strconv.Atoi(fs[1])
		case "var":
			p := make([]float64, len(fs)-2)
			for k := range p {
				if p[k], err = strconv.ParseFloat(fs[k+2], 64); err != nil {
					break
				}
			}
			r.Marginals[fs[1]] = p
			r.Labels = append(r.Labels, fs[1])
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return r, sc.Err()
}
