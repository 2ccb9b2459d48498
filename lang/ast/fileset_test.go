package ast

import (
	"testing"
	"unsafe"
)

// TestPosSize: a Pos is one machine word at most, what every node, factor
// and variable carries (a resolved Position is five words).
func TestPosSize(t *testing.T) {
	if s := unsafe.Sizeof(Pos(0)); s > 8 {
		t.Errorf("ast.Pos is %d bytes, want at most 8", s)
	}
}

// TestFileSetLines: line and column at line starts, line ends (the
// newline itself), the end of a last line without a newline, and the end
// of the file.
func TestFileSetLines(t *testing.T) {
	fset := NewFileSet()
	src := "ab\n\ncde\nf" // lines start at 0, 3, 4, 8; the file ends at 9
	f := fset.AddFile("m.fg", []byte(src))
	for _, c := range []struct {
		off, line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, // 2 is the first newline
		{3, 2, 1}, // an empty line: its newline
		{4, 3, 1}, {6, 3, 3}, {7, 3, 4},
		{8, 4, 1}, {9, 4, 2}, // the last line has no newline; 9 is the end of the file
	} {
		got := fset.Position(f.Pos(c.off))
		want := Position{Filename: "m.fg", Offset: c.off, Line: c.line, Column: c.col}
		if got != want {
			t.Errorf("offset %d: %+v, want %+v", c.off, got, want)
		}
		if f.Offset(f.Pos(c.off)) != c.off || fset.File(f.Pos(c.off)) != f {
			t.Errorf("offset %d does not round-trip", c.off)
		}
	}
	for line, want := range []int{-1, 0, 3, 4, 8} {
		if got, ok := f.LineStart(line); (want < 0) == ok || ok && got != want {
			t.Errorf("LineStart(%d) = %d, %v; want %d", line, got, ok, want)
		}
	}
	if _, ok := f.LineStart(5); ok {
		t.Error("LineStart(5) of a file of 4 lines")
	}
	if got := fset.Position(NoPos); got.IsValid() || got.String() != "-" {
		t.Errorf("NoPos resolves to %+v", got)
	}
	if fset.File(Pos(f.Base()+f.Size()+1)) != nil || fset.File(Pos(f.Base()-1)) != nil {
		t.Error("positions outside the file resolve to it")
	}
	var none *FileSet
	if none.Position(f.Pos(1)).IsValid() || none.Files() != nil {
		t.Error("the nil FileSet resolves a position")
	}
}

// TestFileSetBOM: columns of line 1 count after a UTF-8 byte order mark;
// offsets still index the file's bytes; the mark itself is line 1 column 1.
func TestFileSetBOM(t *testing.T) {
	fset := NewFileSet()
	f := fset.AddFile("bom.fg", []byte("\uFEFFab\ncd"))
	for _, c := range []struct{ off, line, col int }{{0, 1, 1}, {3, 1, 1}, {4, 1, 2}, {6, 2, 1}, {8, 2, 3}} {
		if p := fset.Position(f.Pos(c.off)); p.Line != c.line || p.Column != c.col || p.Offset != c.off {
			t.Errorf("offset %d: %+v, want %d:%d", c.off, p, c.line, c.col)
		}
	}
}

// TestFileSetFiles: several files (a model and its imports, an empty
// file, an expression) each own their range; a Pos names its file.
func TestFileSetFiles(t *testing.T) {
	fset := NewFileSet()
	a := fset.AddFile("a.fg", []byte("x\ny\n"))
	empty := fset.AddFile("empty.fg", nil)
	b := fset.AddFile("lib/b.fg", []byte("import\n  z"))
	e := fset.AddFile("", []byte("1 + 2"))
	for _, c := range []struct {
		f    *SourceFile
		off  int
		want string
	}{
		{a, 0, "a.fg:1:1"}, {a, 2, "a.fg:2:1"}, {a, 4, "a.fg:3:1"},
		{empty, 0, "empty.fg:1:1"},
		{b, 0, "lib/b.fg:1:1"}, {b, 9, "lib/b.fg:2:3"}, {b, 10, "lib/b.fg:2:4"},
		{e, 4, "1:5"},
	} {
		if got := fset.Position(c.f.Pos(c.off)).String(); got != c.want {
			t.Errorf("%s offset %d: %s, want %s", c.f.Name(), c.off, got, c.want)
		}
	}
	if b.Base() <= empty.Base() || empty.Base() <= a.Base()+a.Size() {
		t.Errorf("bases %d %d %d overlap", a.Base(), empty.Base(), b.Base())
	}
	if got := fset.Files(); len(got) != 4 || got[2] != b {
		t.Errorf("Files = %v", got)
	}
}

// TestSubset: a set made of some files of another keeps their positions,
// and adds new files after all the files of the other.
func TestSubset(t *testing.T) {
	old := NewFileSet()
	a := old.AddFile("a.fg", []byte("x\ny\n"))
	set := old.AddFile("set", []byte("3"))
	b := old.AddFile("b.fg", []byte("z\n"))
	fset := old.Subset(b, a)
	if got := fset.Position(b.Pos(2)).String(); got != "b.fg:2:1" {
		t.Errorf("b.fg's end resolves to %s", got)
	}
	if got := fset.Files(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("Files = %v", got)
	}
	c := fset.AddFile("c.fg", []byte("w"))
	if c.Base() <= b.Base()+b.Size() || fset.Position(c.Pos(1)).String() != "c.fg:1:2" {
		t.Errorf("new file at base %d after b.fg at %d", c.Base(), b.Base())
	}
	if fset.File(set.Pos(0)) != nil || fset.File(set.Pos(1)) != nil {
		t.Error("a file left out resolves")
	}
}

// TestFileSetStream: a stream's line table holds the lines recorded, in
// any order; positions on them resolve, others are the file only.
func TestFileSetStream(t *testing.T) {
	fset := NewFileSet()
	f := fset.AddStream("g.fg", 1<<20)
	f.AddLine(0, 1)
	f.AddLine(500, 40)
	f.AddLine(120, 7) // out of order: a run's line recorded after its labels'
	f.AddLine(500, 40)
	for _, c := range []struct {
		off  int
		want string
	}{{0, "g.fg:1:1"}, {130, "g.fg:7:11"}, {501, "g.fg:40:2"}, {1 << 20, "g.fg:40:1048077"}} {
		if got := fset.Position(f.Pos(c.off)).String(); got != c.want {
			t.Errorf("offset %d: %s, want %s", c.off, got, c.want)
		}
	}
	if _, ok := f.LineStart(1); ok {
		t.Error("LineStart of a stream")
	}
	g := fset.AddStream("h.fg", 100)
	g.AddLine(10, 2)
	if got := fset.Position(g.Pos(5)).String(); got != "h.fg" {
		t.Errorf("a position before the first recorded line: %s", got)
	}
}
