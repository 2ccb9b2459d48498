package stdlib

import (
	"math"
	"regexp"
	"strings"
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
	if !(math.Abs(X.Data[0]-want) <= 1e-15) || !(math.Abs(X.Data[1]-want) <= 1e-15) || X.Data[2] != 1 || X.Names[2] != "intercept" {
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

// TestCSVNormalize: normalize centres each column and gives it unit norm.
func TestCSVNormalize(t *testing.T) {
	m, err := ParseCSV(strings.NewReader("a,b\n1,10\n2,30\n6,20\n"), "n.csv", CSVOptions{Normalize: true, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 2; c++ {
		sum, ss := 0.0, 0.0
		for r := 0; r < m.Rows; r++ {
			x := m.Data[r*m.Cols+c]
			sum += x
			ss += x * x
		}
		if !(math.Abs(sum) <= 1e-14) || !(math.Abs(ss-1) <= 1e-14) {
			t.Errorf("column %d: sum %g, squared norm %g", c, sum, ss)
		}
	}
	// By hand: column a = (1, 2, 6), mean 3, centred (−2, −1, 3), norm √14.
	if got, want := m.Data[0], -2/math.Sqrt(14); !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("a[0] = %g, want %g", got, want)
	}
	if m.Data[2] != 1 {
		t.Errorf("intercept column = %g", m.Data[2])
	}
}

// TestCSVHeaderErrors: a header without rows, a repeated or an empty column
// name are named plainly.
func TestCSVHeaderErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"a,b\n", "csv h.csv: no data rows after the header line"},
		{"a,b\n# a comment\n", "csv h.csv: no data rows after the header line"},
		{"x,y,x\n1,2,3\n", "h.csv:1: csv: column `x` appears twice in the header (columns 1 and 3)"},
		{"x, ,y\n1,2,3\n", "h.csv:1: csv: column 2 has an empty name"},
	}
	for _, c := range cases {
		_, err := ParseCSV(strings.NewReader(c.src), "h.csv", CSVOptions{Standardize: true})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// TestCSVUnderflow: a cell that rounds to 0 is an error, as the literal
// 1e-400 is; zeros written any way and subnormal numbers are kept.
func TestCSVUnderflow(t *testing.T) {
	m, err := ParseCSV(strings.NewReader("a\n0\n-0.0\n0e-999\n1e-310\n"), "u.csv", CSVOptions{})
	if err != nil || m.Rows != 4 || m.Data[3] != 1e-310 {
		t.Fatalf("%v %v", m, err)
	}
	_, err = ParseCSV(strings.NewReader("a,b\n1,2\n3,1e-400\n"), "u.csv", CSVOptions{})
	if err == nil || err.Error() != "u.csv:3:3: csv: value 1e-400 in column `b` is out of range: it rounds to 0" {
		t.Errorf("got %v", err)
	}
}
