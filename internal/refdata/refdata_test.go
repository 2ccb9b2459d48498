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

func TestReadLibDAI(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.tsv")
	os.WriteFile(p, []byte("logZ\t1.5\niters\t12\nmaxdiff\t1e-10\nvar\t3\t0.25\t0.75\nvar\t1\t0.5\t0.5\n"), 0o644)
	r, err := ReadLibDAI(p)
	if err != nil || r.LogZ != 1.5 || r.Iters != 12 || len(r.Marginals["3"]) != 2 || r.Marginals["3"][1] != 0.75 {
		t.Fatalf("r = %+v, err = %v", r, err)
	}
	if o := r.InOrder(); len(o) != 2 || o[0][0] != 0.25 || o[1][0] != 0.5 {
		t.Fatalf("InOrder = %v (labels %v)", o, r.Labels)
	}
	os.WriteFile(p, []byte("logZ\tx\n"), 0o644)
	if _, err := ReadLibDAI(p); err == nil {
		t.Fatal("no error for a bad number")
	}
}
