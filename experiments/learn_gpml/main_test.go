package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestToy2d runs the experiment on toy2d with L-BFGS: the learned nlZ must
// not exceed GPML's 14.775668 (reference toy2d_se_probit_opt100) by more
// than 1e-6, the test accuracy must equal GPML's 0.890, and the outputs
// must be written.
func TestToy2d(t *testing.T) {
	c, err := loadCase("toy2d_se_probit")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := runCase(context.Background(), c, []string{"lbfgs"})
	if err != nil {
		t.Fatal(err)
	}
	fg := rows[1]
	if fg.NLZ > c.GPMLNLZ+1e-6 || !(math.Abs(fg.Acc-c.GPMLAcc) <= 1e-3) {
		t.Errorf("fg nlZ %.9f acc %.3f; GPML nlZ %.9f acc %.3f", fg.NLZ, fg.Acc, c.GPMLNLZ, c.GPMLAcc)
	}
	dir := t.TempDir()
	printTable(os.Stdout, rows)
	if err := writeOutputs(dir, rows); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.csv", "trace.csv", "trace.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
