package stdlib

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLibSVMEdgeCases reads testdata/edge.svm: comments (whole-line,
// indented, trailing), an index gap, unsorted indices, a tab and a trailing
// space, a qid token, an empty row, an explicit zero and a CRLF line end.
func TestLibSVMEdgeCases(t *testing.T) {
	m, err := LoadLibSVM(nil, "testdata/edge.svm")
	if err != nil {
		t.Fatal(err)
	}
	want := &CSR{Rows: 5, Cols: 5,
		Ptr:    []int{0, 2, 5, 6, 6, 8},
		Idx:    []int32{0, 2, 0, 1, 3, 1, 2, 4},
		Val:    []float64{0.5, -2, 3, 0.1, 1.5, 4, 2.5, 0},
		Labels: []float64{1, -1, 1, -1, 1},
		Lines:  []int{2, 3, 6, 7, 8}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %+v\nwant %+v", m, want)
	}
	idx, val := m.Row(1)
	if !reflect.DeepEqual(idx, []int32{0, 1, 3}) || !reflect.DeepEqual(val, []float64{3, 0.1, 1.5}) {
		t.Errorf("row 1 = %v %v", idx, val)
	}
	s, err := LabelSpins(m.Labels, m.Lines, "edge.svm")
	if err != nil || !reflect.DeepEqual(s, m.Labels) {
		t.Errorf("spins %v %v", s, err)
	}
}

func TestLibSVMErrors(t *testing.T) {
	cases := []struct{ src, rx string }{
		{"1 1:2\nabc 1:2\n", `^x.svm:2:1: libsvm: label "abc" is not a finite number$`},
		{"1 1:2 3\n", `^x.svm:1:7: libsvm: expected INDEX:VALUE, got "3"$`},
		{"1 0:2\n", `^x.svm:1:3: libsvm: index "0" is not an integer in 1\.\.\d+ \(indices are 1-based\)$`},
		{"1 -4:2\n", `^x.svm:1:3: libsvm: index "-4"`},
		{"1 x:2\n", `^x.svm:1:3: libsvm: index "x"`},
		{"# c\n\n1  2:1e999\n", `^x.svm:3:6: libsvm: value "1e999" of index 2 is not a finite number$`},
		{"1 2:nan\n", `^x.svm:1:5: libsvm: value "nan"`},
		{"1 2:\n", `^x.svm:1:5: libsvm: value ""`},
		{"1 2:1 qid:3\n", `^x.svm:1:7: libsvm: qid:N must be an integer right after the label`},
		{"1 qid:a 2:1\n", `^x.svm:1:3: libsvm: qid:N`},
		{"1 3:1 2:1 3:5\n", `^x.svm:1:1: libsvm: index 3 appears twice$`},
		{"1 99999999999:1\n", `^x.svm:1:3: libsvm: index "99999999999"`},
	}
	for _, tc := range cases {
		_, err := ParseLibSVM(strings.NewReader(tc.src), "x.svm")
		if err == nil || !regexp.MustCompile(tc.rx).MatchString(err.Error()) {
			t.Errorf("%q: err = %v, want /%s/", tc.src, err, tc.rx)
		}
	}
}

func TestLibSVMFiles(t *testing.T) {
	if _, err := LoadLibSVM(nil, "testdata/missing.svm"); err == nil || err.Error() != "libsvm testdata/missing.svm: file not found" {
		t.Errorf("missing: %v", err)
	}
	if _, err := LoadLibSVM(nil, "testdata"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	fsys := fstest.MapFS{"d/a.svm": {Data: []byte("0 1:1\n1 2:2")}}
	m, err := LoadLibSVM(fsys, "d/a.svm")
	if err != nil || m.Rows != 2 || m.Cols != 2 {
		t.Errorf("fs: %+v %v", m, err)
	}
	long := filepath.Join(t.TempDir(), "long.svm")
	if err := os.WriteFile(long, []byte("1 1:"+strings.Repeat("1", MaxLibSVMLine)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLibSVM(nil, long); err == nil || !strings.Contains(err.Error(), ":1:1: libsvm: line longer than") {
		t.Errorf("long line: %v", err)
	}
}

func TestLabelSpins(t *testing.T) {
	lines := []int{1, 2, 3}
	if s, err := LabelSpins([]float64{0, 1, 0}, lines, "a"); err != nil || !reflect.DeepEqual(s, []float64{-1, 1, -1}) {
		t.Errorf("0/1: %v %v", s, err)
	}
	if _, err := LabelSpins([]float64{1, 2, 0}, lines, "a"); err == nil || err.Error() != "a:2:1: libsvm: label 2 is not binary (use -1/+1 or 0/1)" {
		t.Errorf("2: %v", err)
	}
	if _, err := LabelSpins([]float64{-1, 1, 0}, lines, "a"); err == nil || err.Error() != "a:3:1: libsvm: labels mix -1 and 0; use -1/+1 or 0/1" {
		t.Errorf("mix: %v", err)
	}
}

func TestScanLibSVM(t *testing.T) {
	info, err := ScanLibSVM(nil, "testdata/edge.svm")
	if err != nil || info.Rows != 5 || info.Cols != 5 || info.NonZeros != 8 || info.LabelErr != nil {
		t.Errorf("%+v %v", info, err)
	}
	fsys := fstest.MapFS{"a.svm": {Data: []byte("3 1:1\n1 2:2\n1 2:x\n")}, "b.svm": {Data: []byte("3 1:1\n")}}
	if _, err := ScanLibSVM(fsys, "a.svm"); err == nil || err.Error() != `a.svm:3:5: libsvm: value "x" of index 2 is not a finite number` {
		t.Errorf("bad value: %v", err)
	}
	if info, err := ScanLibSVM(fsys, "b.svm"); err != nil || info.LabelErr == nil || info.LabelErr.Error() != "b.svm:1:1: libsvm: label 3 is not binary (use -1/+1 or 0/1)" {
		t.Errorf("label: %+v %v", info, err)
	}
}

// TestLibSVMCommentInToken: `#` ends the line's data even inside a token.
func TestLibSVMCommentInToken(t *testing.T) {
	m, err := ParseLibSVM(strings.NewReader("1 2:3#c 4:5\n#\n-1#x\n"), "c.svm")
	if err != nil || m.Rows != 2 || !reflect.DeepEqual(m.Idx, []int32{1}) || m.Val[0] != 3 || m.Labels[1] != -1 {
		t.Errorf("%+v %v", m, err)
	}
}

// FuzzLibSVM: the reader never panics, every error names f.svm:LINE:COL
// or a file-level problem, and every row it accepts is sorted, within
// the index bound and finite.
func FuzzLibSVM(f *testing.F) {
	src, err := os.ReadFile("testdata/edge.svm")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(src), "1 1:2\n", "1 qid:3 2:1e-3 1:4 # c\r\n", "x", "1 0:1", "1 2:1 2:1", "-1 99999999999:1"} {
		f.Add(s)
	}
	pos := regexp.MustCompile(`^f\.svm:\d+:\d+: libsvm: `)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseLibSVM(strings.NewReader(s), "f.svm")
		if err != nil {
			if !pos.MatchString(err.Error()) {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		for i := range m.Rows {
			idx, val := m.Row(i)
			for k := range idx {
				if idx[k] < 0 || int(idx[k]) >= m.Cols || (k > 0 && idx[k] <= idx[k-1]) || math.IsNaN(val[k]) || math.IsInf(val[k], 0) {
					t.Fatalf("row %d: %v %v", i, idx, val)
				}
			}
		}
	})
}
