package graph

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
)

// ReadLibDAI reads a factor graph in libDAI's plain-text .fg format from the
// file at path. See ParseLibDAI for the mapping onto Graph.
func ReadLibDAI(path string) (*Graph, error) {
	f, err := safefile.Open(nil, path, safefile.MaxSource)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLibDAI(f, path)
}

// ParseLibDAI parses libDAI's .fg format read from r; name is the file name
// used in error positions. The format is a whitespace-separated token stream
// (text from '#' to the end of a line is a comment):
//
//	F                        number of factors
//	then F blocks of
//	  n                      number of variables of the factor
//	  l_1 ... l_n            variable labels (non-negative integers)
//	  k_1 ... k_n            their cardinalities
//	  m                      number of non-zero entries
//	  m lines "index value"  linear index in libDAI order (first variable fastest)
//
// Every distinct label becomes one scalar latent named after the label
// (domain Cat, Card k); latents are ordered by ascending label, so variable
// ids follow label order. Each block becomes a Factor of Kind "table" whose
// Vars are in the order listed in the file and whose dense Table keeps the
// file's index order; entries not listed are zero. Errors are *ast.Error
// values naming the file, line and column.
func ParseLibDAI(r io.Reader, name string) (*Graph, error) {
	toks, err := tokenize(r, name)
	if err != nil {
		return nil, err
	}
	p := &fgParser{toks: toks, name: name}
	blocks, err := p.parse()
	if err != nil {
		return nil, err
	}
	return buildLibDAI(blocks)
}

type token struct {
	text string
	pos  ast.Pos
}

func tokenize(r io.Reader, name string) ([]token, error) {
	var toks []token
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		col := 0
		for col < len(s) {
			for col < len(s) && isSpace(s[col]) {
				col++
			}
			start := col
			for col < len(s) && !isSpace(s[col]) {
				col++
			}
			if col > start {
				toks = append(toks, token{s[start:col], ast.Pos{Filename: name, Line: line, Column: start + 1}})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ast.Error{Pos: ast.Pos{Filename: name, Line: line + 1, Column: 1}, Msg: "libdai: " + err.Error()}
	}
	return toks, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

type fgBlock struct {
	labels []int
	cards  []int
	table  []float64
	pos    []ast.Pos // position of each label
	cpos   []ast.Pos // position of each cardinality
	start  ast.Pos
}

type fgParser struct {
	toks []token
	i    int
	name string
}

func (p *fgParser) errorf(pos ast.Pos, format string, args ...any) error {
	return &ast.Error{Pos: pos, End: pos, Msg: "libdai: " + fmt.Sprintf(format, args...)}
}

// eofPos is the position just after the last token.
func (p *fgParser) eofPos() ast.Pos {
	if len(p.toks) == 0 {
		return ast.Pos{Filename: p.name, Line: 1, Column: 1}
	}
	t := p.toks[len(p.toks)-1]
	t.pos.Column += len(t.text)
	return t.pos
}

func (p *fgParser) next(what string) (token, error) {
	if p.i >= len(p.toks) {
		return token{}, p.errorf(p.eofPos(), "unexpected end of file, expected %s", what)
	}
	t := p.toks[p.i]
	p.i++
	return t, nil
}

// int reads a non-negative integer no smaller than min.
func (p *fgParser) int(what string, min int) (int, ast.Pos, error) {
	t, err := p.next(what)
	if err != nil {
		return 0, t.pos, err
	}
	v, err := strconv.Atoi(t.text)
	if err != nil {
		return 0, t.pos, p.errorf(t.pos, "expected %s (an integer), found %q", what, t.text)
	}
	if v < min {
		return 0, t.pos, p.errorf(t.pos, "%s must be at least %d, found %d", what, min, v)
	}
	return v, t.pos, nil
}

func (p *fgParser) parse() ([]fgBlock, error) {
	nf, _, err := p.int("number of factors", 0)
	if err != nil {
		return nil, err
	}
	blocks := make([]fgBlock, 0, min(nf, 1<<16))
	for k := 0; k < nf; k++ {
		b, err := p.block(k)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
	if p.i < len(p.toks) {
		t := p.toks[p.i]
		return nil, p.errorf(t.pos, "unexpected %q after the %d factors announced", t.text, nf)
	}
	return blocks, nil
}

func (p *fgParser) block(k int) (fgBlock, error) {
	var b fgBlock
	n, pos, err := p.int(fmt.Sprintf("number of variables of factor %d", k), 0)
	if err != nil {
		return b, err
	}
	b.start = pos
	b.labels, b.pos = make([]int, n), make([]ast.Pos, n)
	seen := map[int]bool{}
	for j := range b.labels {
		if b.labels[j], b.pos[j], err = p.int("variable label", 0); err != nil {
			return b, err
		}
		if seen[b.labels[j]] {
			return b, p.errorf(b.pos[j], "variable %d appears twice in factor %d", b.labels[j], k)
		}
		seen[b.labels[j]] = true
	}
	b.cards, b.cpos = make([]int, n), make([]ast.Pos, n)
	size := 1.0
	for j := range b.cards {
		if b.cards[j], b.cpos[j], err = p.int("cardinality", 1); err != nil {
			return b, err
		}
		size *= float64(b.cards[j])
	}
	if size > 1<<31 {
		return b, p.errorf(pos, "factor %d has %g entries, too many for a dense table", k, size)
	}
	b.table = make([]float64, int(size))
	return b, p.entries(&b, k)
}

func (p *fgParser) entries(b *fgBlock, k int) error {
	nnz, _, err := p.int("number of non-zero entries", 0)
	if err != nil {
		return err
	}
	for e := 0; e < nnz; e++ {
		idx, ipos, err := p.int("table index", 0)
		if err != nil {
			return err
		}
		if idx >= len(b.table) {
			return p.errorf(ipos, "index %d out of range 0..%d of factor %d", idx, len(b.table)-1, k)
		}
		t, err := p.next("table value")
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return p.errorf(t.pos, "expected a finite table value, found %q", t.text)
		}
		if v < 0 {
			return p.errorf(t.pos, "negative table value %s in factor %d", t.text, k)
		}
		b.table[idx] = v
	}
	return nil
}

// buildLibDAI turns parsed blocks into a Graph: one Cat latent per label.
func buildLibDAI(blocks []fgBlock) (*Graph, error) {
	card := map[int]int{}
	first := map[int]ast.Pos{}
	for k, b := range blocks {
		for j, l := range b.labels {
			c, ok := card[l]
			if ok && c != b.cards[j] {
				return nil, &ast.Error{Pos: b.cpos[j], End: b.cpos[j], Msg: fmt.Sprintf(
					"libdai: variable %d has cardinality %d in factor %d but %d at %s", l, b.cards[j], k, c, first[l])}
			}
			if !ok {
				card[l], first[l] = b.cards[j], b.pos[j]
			}
		}
	}
	labels := make([]int, 0, len(card))
	for l := range card {
		labels = append(labels, l)
	}
	sort.Ints(labels)
	g := &Graph{}
	id := make(map[int]int, len(labels))
	for _, l := range labels {
		li := g.AddLatent(strconv.Itoa(l), Cat, card[l], nil, first[l])
		id[l] = g.Latents[li].First
	}
	for _, b := range blocks {
		vars := make([]int, len(b.labels))
		names := make([]string, len(b.labels))
		for j, l := range b.labels {
			vars[j], names[j] = id[l], strconv.Itoa(l)
		}
		g.AddFactor(Factor{Kind: "table", Vars: vars, Table: b.table,
			Label: "table(" + strings.Join(names, ", ") + ")", Pos: b.start})
	}
	return g, nil
}

// WriteLibDAI writes the discrete factors of g in libDAI's .fg format. Each
// variable is written with its id as label and its Card as cardinality;
// factor variables keep their order and tables their index order (first
// variable fastest); zero entries are omitted. Values are written with the
// shortest representation that parses back to the same float64, so
// ParseLibDAI(WriteLibDAI(g)) reproduces every table exactly. It fails on a
// factor without a table or whose table size does not match its variables.
func WriteLibDAI(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d\n", len(g.Factors))
	for fi := range g.Factors {
		if err := writeFactor(bw, g, fi); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeFactor(bw *bufio.Writer, g *Graph, fi int) error {
	f := &g.Factors[fi]
	size := 1
	for _, v := range f.Vars {
		if v < 0 || v >= len(g.Vars) || g.Vars[v].Card < 1 {
			return fmt.Errorf("libdai: factor %d (%s): variable %d is not discrete", fi, f.Label, v)
		}
		size *= g.Vars[v].Card
	}
	if len(f.Table) != size {
		return fmt.Errorf("libdai: factor %d (%s): table has %d entries, want %d", fi, f.Label, len(f.Table), size)
	}
	fmt.Fprintf(bw, "\n%d\n", len(f.Vars))
	for j, v := range f.Vars {
		fmt.Fprintf(bw, "%s%d", sep(j), v)
	}
	bw.WriteString("\n")
	for j, v := range f.Vars {
		fmt.Fprintf(bw, "%s%d", sep(j), g.Vars[v].Card)
	}
	nnz := 0
	for _, t := range f.Table {
		if t != 0 {
			nnz++
		}
	}
	fmt.Fprintf(bw, "\n%d\n", nnz)
	for i, t := range f.Table {
		if t != 0 {
			fmt.Fprintf(bw, "%d %s\n", i, strconv.FormatFloat(t, 'g', -1, 64))
		}
	}
	return nil
}

func sep(j int) string {
	if j == 0 {
		return ""
	}
	return " "
}
