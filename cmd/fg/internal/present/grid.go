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
	widths := g.widths()
	var b strings.Builder
	for _, r := range g.rows {
		b.WriteString(indent)
		for j, c := range r {
			b.WriteString(c)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (g *grid) widths() []int {
	var widths []int
	for _, r := range g.rows {
		for j, c := range r {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			if n := utf8.RuneCountInString(c); n > widths[j] {
				widths[j] = n
			}
		}
	}
	return widths
}
