package ast

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a compact position: an offset into a FileSet (the base of a file
// plus a byte offset in it), as go/token.Pos. It is what syntax nodes and
// compiled values carry; FileSet.Position turns it into a Position (file,
// line, column) where it is printed. The zero Pos, NoPos, is unknown.
type Pos int

// NoPos is the unknown position.
const NoPos Pos = 0

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p != NoPos }

// Advance returns the position n bytes further (token ends never span
// lines in fg). An unknown position stays unknown.
func (p Pos) Advance(n int) Pos {
	if !p.IsValid() {
		return p
	}
	return p + Pos(n)
}

// Position is a resolved position: file, byte offset, line and column.
// Line and Column are 1-based; Column counts bytes (on line 1 after a
// UTF-8 byte order mark). A Position with Line 0 is unknown; one with only
// a Filename is about the whole file (a file that cannot be read).
type Position struct {
	Filename string
	Offset   int // byte offset, 0-based
	Line     int
	Column   int
}

// IsValid reports whether the position is known.
func (p Position) IsValid() bool { return p.Line > 0 }

// String renders file:line:col, omitting what is unknown.
func (p Position) String() string {
	switch {
	case !p.IsValid() && p.Filename == "":
		return "-"
	case !p.IsValid():
		return p.Filename
	case p.Filename == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// Error is a diagnostic at a source span [Pos, End). Every phase (parser,
// compile, data loading, the engines' refusals) reports its errors with
// this type. It holds resolved positions, so that an error value reads
// the same wherever it travels, without the FileSet it came from.
type Error struct {
	Pos, End Position
	Msg      string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList collects the errors of a phase; like go/scanner.ErrorList it can
// be sorted and turned into a single error.
type ErrorList []*Error

// Add appends an error at the span [pos, end).
func (l *ErrorList) Add(pos, end Position, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, End: end, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by file, line and column.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// MaxErrors is how many errors a phase reports before it stops: past it,
// a file is rarely worth reading further, and the work per error (messages
// with suggestions, snippets) would make a file of 10⁵ bad lines slow.
const MaxErrors = 100

// Truncate cuts a sorted list to MaxErrors errors, ending it with one, at
// the first error left out, that says so.
func (l ErrorList) Truncate() ErrorList {
	if len(l) <= MaxErrors {
		return l
	}
	next := l[MaxErrors]
	return append(l[:MaxErrors:MaxErrors], &Error{Pos: next.Pos, End: next.End,
		Msg: fmt.Sprintf("too many errors: only the first %d are shown", MaxErrors)})
}

// Err returns nil for an empty list and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error is one line: the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (and %d more errors)", l[0].Error(), len(l)-1)
	return b.String()
}
