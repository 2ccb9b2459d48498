package stream

import (
	"io"
	"io/fs"

	"github.com/fg-infer/fg/stdlib"
)

// Rows yields the examples of one pass in file order. Next returns io.EOF
// after the last example; the slices it returns are valid until the next
// call.
type Rows interface {
	Next() (y float64, idx []int32, val []float64, err error)
	Close() error
}

// Source starts a pass over the data; every pass must yield the same
// examples in the same order (EP's stored sites are matched by position).
type Source interface {
	Open() (Rows, error)
}

// LibSVMFile is a libsvm file read as a stream: each Open reads it from the
// start through a 1 MiB buffer, so a pass holds one line at a time.
// Binary labels become spins as in stdlib.LabelSpins ({−1, +1} kept,
// {0, 1} → {−1, +1}); a label outside these, or a file mixing −1 and 0, is
// an error naming its line.
type LibSVMFile struct {
	FS   fs.FS // nil: the operating system's files
	Path string
}

// Open implements Source.
func (s LibSVMFile) Open() (Rows, error) {
	f, err := stdlib.OpenRegular(s.FS, s.Path, "libsvm")
	if err != nil {
		return nil, err
	}
	return &libsvmRows{f: f, r: stdlib.NewLibSVMReader(f, s.Path), spins: stdlib.SpinLabels{Name: s.Path}}, nil
}

type libsvmRows struct {
	f     fs.File
	r     *stdlib.LibSVMReader
	spins stdlib.SpinLabels
}

func (r *libsvmRows) Next() (float64, []int32, []float64, error) {
	row, err := r.r.Next()
	if err != nil {
		return 0, nil, nil, err
	}
	y, err := r.spins.Spin(row.Label, row.Line)
	return y, row.Idx, row.Val, err
}

func (r *libsvmRows) Close() error { return r.f.Close() }

// CSRSource streams the rows of an in-memory matrix with spin labels Y.
type CSRSource struct {
	M *stdlib.CSR
	Y []float64
}

// Open implements Source.
func (s CSRSource) Open() (Rows, error) { return &csrRows{s: s}, nil }

type csrRows struct {
	s CSRSource
	i int
}

func (r *csrRows) Next() (float64, []int32, []float64, error) {
	if r.i >= r.s.M.Rows {
		return 0, nil, nil, io.EOF
	}
	idx, val := r.s.M.Row(r.i)
	r.i++
	return r.s.Y[r.i-1], idx, val, nil
}

func (r *csrRows) Close() error { return nil }
