package stdlib

import (
	"math"
	"regexp"
	"testing"
	"testing/fstest"
)

func TestCSVErrors(t *testing.T) {
	cases := []struct {
		path string
		opt  CSVOptions
		rx   string
	}{
		{"testdata/missing.csv", CSVOptions{}, `^csv testdata/missing.csv: file not found$`},
		{"testdata/ok.csv", CSVOptions{Column: "lable"}, "column `lable` not found; columns are a, b, label \\(did you mean `label`\\?\\)"},
		{"testdata/ok.csv", CSVOptions{Exclude: []string{"zzz"}}, "column `zzz` not found; columns are a, b, label$"},
		{"testdata/bad.csv", CSVOptions{}, "^testdata/bad.csv:4:3: csv: non-numeric value \"abc\" in column `x2`$"},
		{"testdata/ok.csv", CSVOptions{Column: "a", Exclude: []string{"b"}}, "at most one of"},
	}
	for _, tc := range cases {
		_, err := LoadCSV(nil, tc.path, tc.opt)
		if err == nil || !regexp.MustCompile(tc.rx).MatchString(err.Error()) {
			t.Errorf("%s %+v: err = %v, want /%s/", tc.path, tc.opt, err, tc.rx)
		}
	}
	// Column x1 of bad.csv is fine; selecting it avoids the bad cell.
	if m, err := LoadCSV(nil, "testdata/bad.csv", CSVOptions{Column: "x1"}); err != nil || m.Rows != 3 {
		t.Errorf("%v %v", m, err)
	}
}

func TestCSVSelectAndTransform(t *testing.T) {
	y, err := LoadCSV(nil, "testdata/ok.csv", CSVOptions{Column: "label"})
	if err != nil || !y.IsVector() || y.Rows != 4 || y.Data[1] != 1 || y.Data[3] != -1 {
		t.Fatalf("%+v %v", y, err)
	}
	X, err := LoadCSV(nil, "testdata/ok.csv", CSVOptions{Exclude: []string{"label"}, Standardize: true, Intercept: true})
	if err != nil || X.Rows != 4 || X.Cols != 3 {
		t.Fatalf("%+v %v", X, err)
	}
	// Column a = 1..4: mean 2.5, population sd sqrt(1.25).
	want := (1 - 2.5) / math.Sqrt(1.25)
	if math.Abs(X.Data[0]-want) > 1e-15 || math.Abs(X.Data[1]-want) > 1e-15 || X.Data[2] != 1 || X.Names[2] != "intercept" {
		t.Errorf("row 0 = %v, want %g %g 1", X.Data[:3], want, want)
	}
	Z, err := LoadCSV(nil, "testdata/ok.csv", CSVOptions{Columns: []string{"b", "a"}})
	if err != nil || Z.Cols != 2 || Z.Data[0] != 10 || Z.Data[1] != 1 {
		t.Errorf("%+v %v", Z, err)
	}
	fsys := fstest.MapFS{"d/x.csv": {Data: []byte("p\n3\n")}}
	v, err := LoadCSV(fsys, "d/x.csv", CSVOptions{Column: "p"})
	if err != nil || v.Data[0] != 3 {
		t.Errorf("fs: %+v %v", v, err)
	}
	if _, err := LoadCSV(fsys, "d/y.csv", CSVOptions{}); err == nil {
		t.Error("missing fs file accepted")
	}
}
