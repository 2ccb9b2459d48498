package ast

import (
	"bytes"
	"unicode/utf8"
)

// alignComments lines up trailing comments of consecutive lines with the
// same indentation, as gofmt does: within such a run every comment starts
// one space after the longest code part. marks are the buffer offsets of the
// space before each trailing comment.
func alignComments(out []byte, marks []int) []byte {
	if len(marks) == 0 {
		return out
	}
	lines := bytes.SplitAfter(out, []byte("\n"))
	cut := make([]int, len(lines)) // byte offset of the mark within the line, or -1
	start, m := 0, 0
	for i, l := range lines {
		cut[i] = -1
		if m < len(marks) && marks[m] < start+len(l) {
			cut[i] = marks[m] - start
			m++
		}
		start += len(l)
	}
	var b bytes.Buffer
	for i := 0; i < len(lines); {
		j := runEnd(lines, cut, i)
		width := 0
		for k := i; k < j; k++ {
			width = max(width, utf8.RuneCount(lines[k][:cut[k]]))
		}
		for k := i; k < j; k++ {
			b.Write(lines[k][:cut[k]])
			b.Write(bytes.Repeat([]byte(" "), width-utf8.RuneCount(lines[k][:cut[k]])))
			b.Write(lines[k][cut[k]:])
		}
		if j == i {
			b.Write(lines[i])
			j++
		}
		i = j
	}
	return b.Bytes()
}

// runEnd returns the end of the run of commented lines starting at i that
// share i's indentation (i itself when line i has no trailing comment).
func runEnd(lines [][]byte, cut []int, i int) int {
	if cut[i] < 0 {
		return i
	}
	ind := indentOf(lines[i])
	j := i + 1
	for j < len(lines) && cut[j] >= 0 && bytes.Equal(indentOf(lines[j]), ind) {
		j++
	}
	return j
}

func indentOf(l []byte) []byte {
	return l[:len(l)-len(bytes.TrimLeft(l, " "))]
}
