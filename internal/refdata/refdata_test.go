package refdata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestColumnsAndSummary(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "a.csv")
	os.WriteFile(csvPath, []byte("x,y\n1,2.5\n-3,4e-1\n"), 0o644)
	cols, err := Columns(csvPath)
	if err != nil || len(cols["x"]) != 2 || cols["x"][1] != -3 || cols["y"][1] != 0.4 {
		t.Fatalf("cols = %v, err = %v", cols, err)
	}
	os.WriteFile(csvPath, []byte("x\n1\nbad\n"), 0o644)
	if _, err := Columns(csvPath); err == nil {
		t.Fatal("no error for a bad cell")
	}
	tsv := filepath.Join(dir, "s.tsv")
	os.WriteFile(tsv, []byte("nlZ\t18.5\nhyp.cov\t0 0 \nnoval\n"), 0o644)
	kv, err := Summary(tsv)
	if err != nil || kv["nlZ"] != "18.5" || kv["hyp.cov"] != "0 0" || len(kv) != 2 {
		t.Fatalf("kv = %v, err = %v", kv, err)
	}
}
