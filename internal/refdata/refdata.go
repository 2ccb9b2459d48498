// Package refdata reads the peer-system reference files in ../shared/reference
// (GPML's summary.tsv and numeric CSV outputs) for tests and experiments.
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
