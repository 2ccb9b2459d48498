package ast

import (
	"bytes"
	"slices"
	"sort"
	"sync"
)

// FileSet is the set of source files of one compilation, as go/token's:
// each file owns the range [base, base+size] of Pos values, so that one
// small integer names a file and a byte offset in it, and Position turns
// it back into file:line:col with the file's line table (computed once,
// when the file is added; looked up by binary search).
//
// The parser adds each file it reads; compile threads the set through to
// Model.Fset, and whoever prints a position resolves it there. A
// recompilation from parsed files starts a new set holding just those
// files (Subset), so the sets of a REPL session or of learning's
// many recompilations do not grow. A FileSet is safe for concurrent use.
// The nil *FileSet holds no file: every Pos resolves to the unknown
// Position.
type FileSet struct {
	mu    sync.RWMutex
	base  int           // the base of the next file
	files []*SourceFile // by increasing base
}

// NewFileSet returns an empty file set.
func NewFileSet() *FileSet { return &FileSet{base: 1} }

// Subset returns a new set holding files, files of s (at their bases).
// The files added to it later get positions that no file of s has had,
// so that a position of a file left out resolves to nothing in the new
// set, never to another file.
func (s *FileSet) Subset(files ...*SourceFile) *FileSet {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sub := &FileSet{base: s.base}
	for _, f := range s.files {
		if slices.Contains(files, f) {
			sub.files = append(sub.files, f)
		}
	}
	return sub
}

// AddFile adds a file with contents src: its Pos values are
// Base()+offset for the offsets 0..len(src) (len(src) is the end of the
// file). Its line table is computed here.
func (s *FileSet) AddFile(filename string, src []byte) *SourceFile {
	f := s.reserve(filename, len(src))
	f.lines = lineStarts(src)
	return f
}

// AddStream adds a file read as a stream of at most limit bytes, whose
// contents are never held whole (a libDAI graph): its reader records the
// start of each line that holds a position it keeps (AddLine), so that the
// table stays as small as the positions kept.
func (s *FileSet) AddStream(filename string, limit int) *SourceFile {
	f := s.reserve(filename, limit)
	f.nums = []int{}
	return f
}

func (s *FileSet) reserve(filename string, size int) *SourceFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &SourceFile{name: filename, base: s.base, size: size}
	s.base += size + 1 // the end of the file is a position of its own
	s.files = append(s.files, f)
	return f
}

// File returns the file holding p, or nil.
func (s *FileSet) File(p Pos) *SourceFile {
	if s == nil || !p.IsValid() {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := sort.Search(len(s.files), func(i int) bool { return s.files[i].base > int(p) }) - 1
	if i < 0 || int(p) > s.files[i].base+s.files[i].size {
		return nil
	}
	return s.files[i]
}

// Position resolves p; a Pos of no file in the set is the unknown
// Position.
func (s *FileSet) Position(p Pos) Position {
	if f := s.File(p); f != nil {
		return f.Position(p)
	}
	return Position{}
}

// Files returns the files of the set in the order of their bases.
func (s *FileSet) Files() []*SourceFile {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*SourceFile(nil), s.files...)
}

// SourceFile is one file of a FileSet: its name, its range of Pos values
// and its line table.
type SourceFile struct {
	name       string
	base, size int
	// lines are the offsets where lines start. A file added whole has
	// them all (line i+1 starts at lines[i]; on line 1 after a UTF-8 byte
	// order mark, so that columns count after it); a stream has those
	// its reader recorded, line nums[i] starting at lines[i].
	lines []int
	nums  []int
}

// Name returns the file name positions print.
func (f *SourceFile) Name() string { return f.name }

// Base returns the Pos of the file's first byte.
func (f *SourceFile) Base() int { return f.base }

// Size returns the file's size in bytes (a stream's limit).
func (f *SourceFile) Size() int { return f.size }

// Pos returns the position of a byte offset in the file (the end of the
// file for offsets past it).
func (f *SourceFile) Pos(offset int) Pos {
	return Pos(f.base + min(max(offset, 0), f.size))
}

// Offset returns the byte offset of p in the file.
func (f *SourceFile) Offset(p Pos) int { return int(p) - f.base }

// AddLine records that line starts at offset, for a stream. Entries
// usually come in increasing order of offset (a reader records them as it
// goes); one already recorded is ignored.
func (f *SourceFile) AddLine(offset, line int) {
	n := len(f.lines)
	if n == 0 || offset > f.lines[n-1] {
		f.lines = append(f.lines, offset)
		f.nums = append(f.nums, line)
		return
	}
	i, found := slices.BinarySearch(f.lines, offset)
	if !found {
		f.lines = slices.Insert(f.lines, i, offset)
		f.nums = slices.Insert(f.nums, i, line)
	}
}

// LineStart returns the offset where line (1-based) starts, in a file
// added whole (on line 1 after a byte order mark); false for a line the
// file does not have, or a stream.
func (f *SourceFile) LineStart(line int) (int, bool) {
	if f.nums != nil || line < 1 || line > len(f.lines) {
		return 0, false
	}
	return f.lines[line-1], true
}

// Position resolves p, a position in the file.
func (f *SourceFile) Position(p Pos) Position {
	if !p.IsValid() {
		return Position{}
	}
	off := f.Offset(p)
	pos := Position{Filename: f.name, Offset: off}
	i := sort.SearchInts(f.lines, off+1) - 1 // the last line starting at or before off
	switch {
	case i >= 0:
		pos.Line, pos.Column = i+1, off-f.lines[i]+1
		if f.nums != nil {
			pos.Line = f.nums[i]
		}
	case f.nums == nil || len(f.nums) > 0 && f.nums[0] == 1: // inside a byte order mark
		pos.Line, pos.Column = 1, 1
	}
	return pos
}

// lineStarts returns the offsets where the lines of src start, the first
// after a UTF-8 byte order mark.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		starts[0] = 3
	}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}
