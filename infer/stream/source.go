package stream

import (
	"fmt"
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
	return &libsvmRows{f: f, r: stdlib.NewLibSVMReader(f, s.Path), name: s.Path}, nil
}

type libsvmRows struct {
	f               fs.File
	r               *stdlib.LibSVMReader
	name            string
	hasNeg, hasZero bool
}

func (r *libsvmRows) Next() (float64, []int32, []float64, error) {
	row, err := r.r.Next()
	if err != nil {
		return 0, nil, nil, err
	}
	y, err := r.spin(row.Label, row.Line)
	return y, row.Idx, row.Val, err
}

// spin is stdlib.LabelSpins for one label of a stream.
func (r *libsvmRows) spin(y float64, line int) (float64, error) {
	switch y {
	case -1:
		r.hasNeg = true
	case 0:
		r.hasZero = true
		y = -1
	case 1:
	default:
		return 0, fmt.Errorf("%s:%d:1: libsvm: label %v is not binary (use -1/+1 or 0/1)", r.name, line, y)
	}
	if r.hasNeg && r.hasZero {
		return 0, fmt.Errorf("%s:%d:1: libsvm: labels mix -1 and 0; use -1/+1 or 0/1", r.name, line)
	}
	return y, nil
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
