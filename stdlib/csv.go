package stdlib

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/internal/safefile"
)

// CSVOptions select and transform the columns read by LoadCSV; they mirror
// the arguments of the fg builtin csv(path, column=, columns=, exclude=,
// standardize=, intercept=).
type CSVOptions struct {
	Column      string   // read one column as a vector (Cols = 0 in the result)
	Columns     []string // read these columns, in this order
	Exclude     []string // read every column except these
	Standardize bool     // z-score each column: (x − mean)/sd with the population sd
	Intercept   bool     // append a final column of ones (after standardizing)
	Normalize   bool     // centre each column and scale it to unit Euclidean norm (after Standardize)
}

// Matrix is a dense row-major numeric table. A vector has Cols == 0 and
// Rows elements.
type Matrix struct {
	Rows, Cols int
	Names      []string // column names (one name for a vector)
	Data       []float64
}

// IsVector reports whether m was read with CSVOptions.Column.
func (m *Matrix) IsVector() bool { return m.Cols == 0 }

// LoadCSV reads a numeric CSV file with a header line from fsys (the
// operating system's files when fsys is nil). Errors name the file and, for
// a bad cell, the line and column as path:line:col (1-based, the header is
// line 1); a missing column lists the columns the file has.
func LoadCSV(fsys fs.FS, path string, opt CSVOptions) (*Matrix, error) {
	r, err := open(fsys, path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("csv %s: file not found", path)
		}
		return nil, fmt.Errorf("csv %s: %v", path, err)
	}
	defer r.Close()
	return ParseCSV(r, path, opt)
}

// open opens a csv file, refusing special files; reading stops with an
// error after safefile.MaxData bytes.
func open(fsys fs.FS, path string) (io.ReadCloser, error) {
	return safefile.Open(fsys, path, safefile.MaxData)
}

// ParseCSV is LoadCSV on an open reader; name is used in messages.
func ParseCSV(r io.Reader, name string, opt CSVOptions) (*Matrix, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("csv %s: empty file (a header line is required)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("csv %s: %v", name, err)
	}
	header = slices.Clone(header) // the reader reuses its record slice
	if err := checkHeader(name, header); err != nil {
		return nil, err
	}
	sel, err := selectColumns(name, header, opt)
	if err != nil {
		return nil, err
	}
	m := &Matrix{Cols: len(sel)}
	for _, c := range sel {
		m.Names = append(m.Names, header[c])
	}
	if err := readRows(cr, name, header, sel, m); err != nil {
		return nil, err
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("csv %s: no data rows after the header line", name)
	}
	if opt.Standardize {
		if err := standardize(m, name); err != nil {
			return nil, err
		}
	}
	if opt.Normalize {
		if err := normalize(m, name); err != nil {
			return nil, err
		}
	}
	if opt.Intercept {
		addIntercept(m)
	}
	if opt.Column != "" && !opt.Intercept {
		m.Cols = 0
	}
	return m, nil
}

// checkHeader trims the column names and rejects empty and repeated ones.
func checkHeader(name string, header []string) error {
	first := map[string]int{}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF") // a byte order mark
	}
	for i := range header {
		h := strings.TrimSpace(header[i])
		header[i] = h
		if h == "" {
			return fmt.Errorf("%s:1: csv: column %d has an empty name", name, i+1)
		}
		if j, dup := first[h]; dup {
			return fmt.Errorf("%s:1: csv: column `%s` appears twice in the header (columns %d and %d)", name, h, j+1, i+1)
		}
		first[h] = i
	}
	return nil
}

// MaxCSVValues bounds the numbers read from one csv file (2²⁵ float64s,
// 256 MiB), so that reading one fits in memory with room to use it.
const MaxCSVValues = 1 << 25

func readRows(cr *csv.Reader, name string, header []string, sel []int, m *Matrix) error {
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return fmt.Errorf("csv %s: %v", name, err)
		}
		if len(m.Data)+len(sel) > MaxCSVValues {
			return fmt.Errorf("%s:%d: csv: more than %d values selected; fg reads at most %d from a csv file", name, line, MaxCSVValues, MaxCSVValues)
		}
		for _, c := range sel {
			s := strings.TrimSpace(rec[c])
			v, perr := strconv.ParseFloat(s, 64)
			_, col := cr.FieldPos(c)
			if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s:%d:%d: csv: non-numeric value %q in column `%s`", name, line, col, s, header[c])
			}
			if v == 0 && underflows(s) {
				return fmt.Errorf("%s:%d:%d: csv: value %s in column `%s` is out of range: it rounds to 0", name, line, col, s, header[c])
			}
			m.Data = append(m.Data, v)
		}
		m.Rows++
	}
}

// underflows reports whether a number that parsed as 0 was written as a
// non-zero number (1e-400): like the language's literals, such a value is
// an error rather than a silent 0.
func underflows(s string) bool {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	return strings.Trim(s, "+-0.") != ""
}

// selectColumns returns the indices of the columns to read, in order.
func selectColumns(name string, header []string, opt CSVOptions) ([]int, error) {
	n := 0
	if opt.Column != "" {
		n++
	}
	if len(opt.Columns) > 0 {
		n++
	}
	if len(opt.Exclude) > 0 {
		n++
	}
	if n > 1 {
		return nil, fmt.Errorf("csv %s: give at most one of column=, columns= and exclude=", name)
	}
	find := func(c string) (int, error) {
		for i, h := range header {
			if h == c {
				return i, nil
			}
		}
		msg := fmt.Sprintf("csv %s: column `%s` not found; columns are %s", name, c, strings.Join(header, ", "))
		if s := Suggest(c, header); s != "" {
			msg += fmt.Sprintf(" (did you mean `%s`?)", s)
		}
		return 0, errors.New(msg)
	}
	switch {
	case opt.Column != "":
		i, err := find(opt.Column)
		return []int{i}, err
	case len(opt.Columns) > 0:
		out := make([]int, len(opt.Columns))
		for k, c := range opt.Columns {
			i, err := find(c)
			if err != nil {
				return nil, err
			}
			out[k] = i
		}
		return out, nil
	}
	skip := map[int]bool{}
	for _, c := range opt.Exclude {
		i, err := find(c)
		if err != nil {
			return nil, err
		}
		skip[i] = true
	}
	var out []int
	for i := range header {
		if !skip[i] {
			out = append(out, i)
		}
	}
	return out, nil
}

// standardize z-scores every column with its mean and population standard
// deviation sqrt(Σ(x − mean)²/n); a constant column is an error.
func standardize(m *Matrix, name string) error {
	for c := 0; c < m.Cols; c++ {
		mean, ss := 0.0, 0.0
		for r := 0; r < m.Rows; r++ {
			mean += m.Data[r*m.Cols+c]
		}
		mean /= float64(m.Rows)
		for r := 0; r < m.Rows; r++ {
			d := m.Data[r*m.Cols+c] - mean
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(m.Rows))
		if !(sd > 0) {
			return fmt.Errorf("csv %s: column `%s` is constant and cannot be standardized", name, m.Names[c])
		}
		for r := 0; r < m.Rows; r++ {
			m.Data[r*m.Cols+c] = (m.Data[r*m.Cols+c] - mean) / sd
		}
	}
	return nil
}

// normalize centres every column and scales it to unit Euclidean norm,
// x ← (x − mean)/‖x − mean‖₂, the preprocessing of roche-numerical-ep.txt
// §3.3; a constant column is an error.
func normalize(m *Matrix, name string) error {
	if err := standardize(m, name); err != nil {
		return err
	}
	s := 1 / math.Sqrt(float64(m.Rows)) // a z-scored column has norm √n
	for i := range m.Data {
		m.Data[i] *= s
	}
	return nil
}

func addIntercept(m *Matrix) {
	out := make([]float64, 0, m.Rows*(m.Cols+1))
	for r := 0; r < m.Rows; r++ {
		out = append(out, m.Data[r*m.Cols:(r+1)*m.Cols]...)
		out = append(out, 1)
	}
	m.Data, m.Cols = out, m.Cols+1
	m.Names = append(m.Names, "intercept")
}
