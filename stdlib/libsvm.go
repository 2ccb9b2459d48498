package stdlib

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"unsafe"

	"github.com/fg-infer/fg/internal/safefile"
)

// The libsvm / svmlight sparse format, one example per line:
//
//	LABEL [qid:N] INDEX:VALUE INDEX:VALUE ... [# comment]
//
// fg reads it with these decisions (docs/language.md, "libsvm data"):
//   - `#` starts a comment to the end of the line; empty and comment-only
//     lines are skipped (they still count for line numbers).
//   - Tokens are separated by spaces or tabs; leading and trailing blanks and
//     a CR before the newline are ignored.
//   - Indices are 1-based integers (stored 0-based); gaps are zeros.
//     Indices of a line may come in any order and are sorted; a repeated
//     index is an error. An explicit value 0 is kept as a stored zero.
//   - A `qid:N` token right after the label (svmlight ranking groups) is
//     accepted and ignored; anywhere else it is an error.
//   - Labels are any finite numbers; LabelSpins maps them to ±1 for binary
//     classification.
//   - Malformed lines are errors `path:line:col: libsvm: ...` with the
//     1-based byte column of the offending token.

// Limits of the libsvm reader: a line longer than MaxLibSVMLine bytes and an
// index above MaxLibSVMIndex are errors, so that a corrupt file cannot make
// the reader allocate without bound (a row of the in-memory CSR holds at
// most MaxLibSVMLine/4 entries; the streaming engine keeps O(d) state).
const (
	MaxLibSVMLine  = 1 << 24 // 16 MiB
	MaxLibSVMIndex = 1 << 26 // 67 108 864 features
	// MaxLibSVMNonZeros bounds the in-memory loader (LoadLibSVM): 5·10⁷
	// stored entries, 600 MB of CSR. Larger files are streamed.
	MaxLibSVMNonZeros = 50_000_000
)

// LibSVMRow is one example: its label and the sorted 0-based indices and
// values of its non-zeros. Line is the 1-based line number in the file.
type LibSVMRow struct {
	Label float64
	Idx   []int32
	Val   []float64
	Line  int
}

// LibSVMReader reads a libsvm file example by example in O(longest line)
// memory; Next reuses the row's slices.
type LibSVMReader struct {
	br   *bufio.Reader
	name string
	line int
	row  LibSVMRow
}

// NewLibSVMReader reads from r; name is used in error messages.
func NewLibSVMReader(r io.Reader, name string) *LibSVMReader {
	return &LibSVMReader{br: bufio.NewReaderSize(r, 1<<20), name: name}
}

// Next returns the next example, io.EOF at the end of the file, or a
// positioned error. The returned row is valid until the next call.
func (r *LibSVMReader) Next() (*LibSVMRow, error) {
	for {
		b, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if blank, err := r.parse(b); err != nil || !blank {
			return &r.row, err
		}
	}
}

// readLine returns the next line without its newline (and CR).
func (r *LibSVMReader) readLine() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		b, err = r.longLine(b)
	}
	if err == io.EOF && len(b) == 0 {
		return nil, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("libsvm %s: %v", r.name, err)
	}
	r.line++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// longLine gathers a line longer than the buffer, up to MaxLibSVMLine.
func (r *LibSVMReader) longLine(first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		b, err := r.br.ReadSlice('\n')
		buf = append(buf, b...)
		if len(buf) > MaxLibSVMLine {
			return nil, fmt.Errorf("%s:%d:1: libsvm: line longer than %d bytes", r.name, r.line+1, MaxLibSVMLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

func (r *LibSVMReader) errorf(col int, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: libsvm: %s", r.name, r.line, col+1, fmt.Sprintf(format, args...))
}

// parse fills r.row from one line and reports whether the line was blank
// (only blanks and a comment).
func (r *LibSVMReader) parse(b []byte) (blank bool, err error) {
	row := &r.row
	row.Idx, row.Val, row.Line = row.Idx[:0], row.Val[:0], r.line
	pos := 0
	tok, col := nextToken(b, &pos)
	if tok == nil {
		return true, nil
	}
	y, ok := parseNum(tok)
	if !ok {
		return false, r.errorf(col, "label %q is not a finite number", tok)
	}
	row.Label = y
	labelEnd := pos
	for {
		if pos = r.fastEntry(b, pos); pos < 0 {
			break
		}
		tok, col = nextToken(b, &pos)
		if tok == nil {
			break
		}
		first := len(bytes.TrimLeft(b[labelEnd:col], " \t")) == 0 // right after the label
		if err := r.entry(tok, col, first); err != nil {
			return false, err
		}
	}
	return false, r.sortRow()
}

// fastEntry reads plain INDEX:VALUE tokens from b[pos:] in one scan each
// (digits, a colon, a short decimal: fastFloat) and returns the position
// of the first token it cannot read that way (a qid, a long number, an
// error: entry then handles it with its messages), or −1 at the end of the
// line or at a comment.
func (r *LibSVMReader) fastEntry(b []byte, pos int) int {
	for {
		for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t') {
			pos++
		}
		if pos == len(b) || b[pos] == '#' {
			return -1
		}
		j, idx := pos, 0
		for j < len(b) && j-pos < 9 && b[j] >= '0' && b[j] <= '9' {
			idx = idx*10 + int(b[j]-'0')
			j++
		}
		if j == pos || j == len(b) || b[j] != ':' || idx < 1 || idx > MaxLibSVMIndex {
			return pos
		}
		v, n, ok := fastFloatPrefix(b[j+1:])
		e := j + 1 + n
		if !ok || (e < len(b) && b[e] != ' ' && b[e] != '\t' && b[e] != '#') {
			return pos
		}
		r.row.Idx = append(r.row.Idx, int32(idx-1))
		r.row.Val = append(r.row.Val, v)
		pos = e
	}
}

// entry parses one INDEX:VALUE (or a leading qid:N) token.
func (r *LibSVMReader) entry(tok []byte, col int, first bool) error {
	c := bytes.IndexByte(tok, ':')
	if c < 0 {
		return r.errorf(col, "expected INDEX:VALUE, got %q", tok)
	}
	if string(tok[:c]) == "qid" {
		if _, err := strconv.Atoi(string(tok[c+1:])); err != nil || !first {
			return r.errorf(col, "qid:N must be an integer right after the label, got %q", tok)
		}
		return nil
	}
	idx, ok := parseIndex(tok[:c])
	if !ok {
		return r.errorf(col, "index %q is not an integer in 1..%d (indices are 1-based)", tok[:c], MaxLibSVMIndex)
	}
	v, ok := parseNum(tok[c+1:])
	if !ok {
		return r.errorf(col+c+1, "value %q of index %d is not a finite number", tok[c+1:], idx)
	}
	r.row.Idx = append(r.row.Idx, int32(idx-1))
	r.row.Val = append(r.row.Val, v)
	return nil
}

// sortRow sorts the row's entries by index (insertion sort in place: a
// no-op for sorted rows, cheap for the short rows of libsvm data) and
// rejects a repeated index.
func (r *LibSVMReader) sortRow() error {
	idx, val := r.row.Idx, r.row.Val
	for k := 1; k < len(idx); k++ {
		i, v, m := idx[k], val[k], k
		for ; m > 0 && idx[m-1] > i; m-- {
			idx[m], val[m] = idx[m-1], val[m-1]
		}
		idx[m], val[m] = i, v
	}
	for k := 1; k < len(idx); k++ {
		if idx[k] == idx[k-1] {
			return fmt.Errorf("%s:%d:1: libsvm: index %d appears twice", r.name, r.line, idx[k]+1)
		}
	}
	return nil
}

// nextToken returns the next blank-separated token from *pos and its
// 0-based byte column, or nil at the end of the line or at a `#`, which
// starts a comment to the end of the line (also inside a token).
func nextToken(b []byte, pos *int) ([]byte, int) {
	i := *pos
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '#' {
		j++
	}
	*pos = j
	if j < len(b) && b[j] == '#' {
		*pos = len(b)
	}
	if i == j {
		return nil, i
	}
	return b[i:j], i
}

// unsafeString views b as a string without copying; the strconv parsers do
// not retain their argument.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// CSR is a sparse matrix in compressed sparse row form: the non-zeros of
// row i are Idx[Ptr[i]:Ptr[i+1]] (sorted 0-based columns) with values
// Val[Ptr[i]:Ptr[i+1]]. Labels holds the label of each row, Lines its line
// in the file.
type CSR struct {
	Rows, Cols int
	Ptr        []int
	Idx        []int32
	Val        []float64
	Labels     []float64
	Lines      []int
}

// Row returns the indices and values of row i (slices of the matrix).
func (m *CSR) Row(i int) ([]int32, []float64) {
	return m.Idx[m.Ptr[i]:m.Ptr[i+1]], m.Val[m.Ptr[i]:m.Ptr[i+1]]
}

// LoadLibSVM reads a whole libsvm file into memory from fsys (the operating
// system's files when fsys is nil). Cols is the largest index; a file with
// more than MaxLibSVMNonZeros stored entries is refused (stream it instead).
// Only regular files are read.
func LoadLibSVM(fsys fs.FS, path string) (*CSR, error) {
	f, err := OpenRegular(fsys, path, "libsvm")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLibSVM(f, path)
}

// ParseLibSVM is LoadLibSVM on an open reader; name is used in messages.
func ParseLibSVM(r io.Reader, name string) (*CSR, error) {
	rd := NewLibSVMReader(r, name)
	m := &CSR{Ptr: []int{0}}
	for {
		row, err := rd.Next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		if len(m.Idx)+len(row.Idx) > MaxLibSVMNonZeros {
			return nil, fmt.Errorf("libsvm %s: more than %d non-zeros; too large to hold in memory", name, MaxLibSVMNonZeros)
		}
		m.Idx = append(m.Idx, row.Idx...)
		m.Val = append(m.Val, row.Val...)
		m.Ptr = append(m.Ptr, len(m.Idx))
		m.Labels = append(m.Labels, row.Label)
		m.Lines = append(m.Lines, row.Line)
		if n := len(row.Idx); n > 0 {
			m.Cols = max(m.Cols, int(row.Idx[n-1])+1)
		}
		m.Rows++
	}
}

// OpenRegular opens path from fsys (the operating system's files when nil)
// and refuses anything but a regular file before opening it (a directory,
// a FIFO or a device could block or never end: safefile.OpenRegular).
// what names the loader in messages.
func OpenRegular(fsys fs.FS, path, what string) (fs.File, error) {
	f, _, err := safefile.OpenRegular(fsys, path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s %s: file not found", what, path)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s %s: %v", what, path, err)
	}
	return f, nil
}

// LabelSpins maps binary labels to spins for classification: labels in
// {−1, +1} are kept and labels in {0, 1} map 0 → −1, 1 → +1. Any other
// label, or a file mixing −1 and 0, is an error naming the first offending
// line (lines[i] is the line of label i).
func LabelSpins(labels []float64, lines []int, name string) ([]float64, error) {
	sp := SpinLabels{Name: name}
	out := make([]float64, len(labels))
	for i, y := range labels {
		var err error
		if out[i], err = sp.Spin(y, lines[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SpinLabels is LabelSpins one label at a time, for streams: Spin maps a
// label to ±1 and fails on a non-binary label or on the first label that
// makes the stream mix −1 and 0.
type SpinLabels struct {
	Name            string // the file, for messages
	hasNeg, hasZero bool
}

// Spin returns the spin of label y read from line.
func (s *SpinLabels) Spin(y float64, line int) (float64, error) {
	switch y {
	case -1:
		s.hasNeg = true
	case 0:
		s.hasZero = true
		y = -1
	case 1:
	default:
		return 0, fmt.Errorf("%s:%d:1: libsvm: label %v is not binary (use -1/+1 or 0/1)", s.Name, line, y)
	}
	if s.hasNeg && s.hasZero {
		return 0, fmt.Errorf("%s:%d:1: libsvm: labels mix -1 and 0; use -1/+1 or 0/1", s.Name, line)
	}
	return y, nil
}

// LibSVMInfo summarises a libsvm file: examples, the largest 1-based index
// (the number of features), stored non-zeros, and whether every label is a
// spin under SpinLabels (LabelErr is the first label error, nil if all are).
type LibSVMInfo struct {
	Rows, Cols, NonZeros int
	LabelErr             error
}

// ScanLibSVM reads a whole libsvm file once in O(longest line) memory and
// returns its summary, or the first malformed line's error.
func ScanLibSVM(fsys fs.FS, path string) (*LibSVMInfo, error) {
	f, err := OpenRegular(fsys, path, "libsvm")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := NewLibSVMReader(f, path)
	sp := SpinLabels{Name: path}
	var info LibSVMInfo
	for {
		row, err := rd.Next()
		if err == io.EOF {
			return &info, nil
		}
		if err != nil {
			return nil, err
		}
		if _, err := sp.Spin(row.Label, row.Line); err != nil && info.LabelErr == nil {
			info.LabelErr = err
		}
		if n := len(row.Idx); n > 0 {
			info.Cols = max(info.Cols, int(row.Idx[n-1])+1)
		}
		info.Rows++
		info.NonZeros += len(row.Idx)
	}
}
