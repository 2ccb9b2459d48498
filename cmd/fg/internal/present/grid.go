package present

import (
	"io"
	"strings"
	"unicode/utf8"
)

// grid is a text table whose columns are padded to their widest cell.
// The first column is left-aligned, the others too (numbers of mixed
// formats read better left-aligned with a fixed gap).
type grid struct {
	rows [][]string
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

// write prints the grid with two spaces between columns and an optional
// indent before every row.
func (g *grid) write(w io.Writer, indent string) error {
	var widths []int
	for _, r := range g.rows {
		widths = growWidths(widths, r)
	}
	var b strings.Builder
	for _, r := range g.rows {
		writeRow(&b, indent, r, widths)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// growWidths widens widths (a column's widest cell, in runes) to the
// cells of one row.
func growWidths(widths []int, cells []string) []int {
	for j, c := range cells {
		if j >= len(widths) {
			widths = append(widths, 0)
		}
		if n := utf8.RuneCountInString(c); n > widths[j] {
			widths[j] = n
		}
	}
	return widths
}

const spaces = "                                "

// writeRow writes one row of a grid: the indent, then the cells padded to
// widths with two spaces between columns.
func writeRow(b io.StringWriter, indent string, cells []string, widths []int) {
	b.WriteString(indent)
	for j, c := range cells {
		b.WriteString(c)
		if j < len(cells)-1 {
			for pad := widths[j] - utf8.RuneCountInString(c) + 2; pad > 0; pad -= len(spaces) {
				b.WriteString(spaces[:min(pad, len(spaces))])
			}
		}
	}
	b.WriteString("\n")
}
