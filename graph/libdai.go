package graph

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
)

// ReadLibDAI reads a factor graph in libDAI's plain-text .fg format from the
// file at path. See ParseLibDAI for the mapping onto Graph.
func ReadLibDAI(path string) (*Graph, error) {
	f, err := safefile.Open(nil, path, safefile.MaxLibDAI)
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
	p := &fgParser{toks: newTokenizer(r, name), name: name, vars: map[int]labelInfo{}}
	g, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.addLatents(g)
	return g, nil
}

// Limits of the libDAI reader, checked before anything they size is
// allocated: a file may announce at most MaxLibDAIFactors factors (the
// factor budget of a graph, MaxFactors, the same as the compiler's), one
// table may hold at most MaxTableEntries entries (2²⁴ float64s, 128 MiB:
// 24 binary variables, or one variable with 16 777 216 states) and all the
// tables of a graph together at most MaxGraphEntries (512 MiB).
const (
	MaxLibDAIFactors = MaxFactors
	MaxTableEntries  = 1 << 24
	MaxGraphEntries  = 1 << 26
)

type token struct {
	text string
	pos  ast.Pos
}

// tokenizer reads the whitespace-separated tokens of a libDAI file one at a
// time, so that memory follows the graph being built, not the file's text.
type tokenizer struct {
	sc    *bufio.Scanner
	name  string
	line  int
	text  string // the current line, comment removed
	col   int    // next byte of text to look at
	last  token  // the last token returned (for end-of-file positions)
	ahead *token // a token peeked at
	err   error
}

func newTokenizer(r io.Reader, name string) *tokenizer {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<26)
	return &tokenizer{sc: sc, name: name}
}

// next returns the next token; ok is false at the end of the input or on a
// read error (in t.err).
func (t *tokenizer) next() (tok token, ok bool) {
	if t.ahead != nil {
		tok, t.ahead = *t.ahead, nil
		return tok, true
	}
	for {
		for t.col < len(t.text) && isSpace(t.text[t.col]) {
			t.col++
		}
		if t.col < len(t.text) {
			start := t.col
			for t.col < len(t.text) && !isSpace(t.text[t.col]) {
				t.col++
			}
			t.last = token{t.text[start:t.col], ast.Pos{Filename: t.name, Line: t.line, Column: start + 1}}
			return t.last, true
		}
		if !t.sc.Scan() {
			if err := t.sc.Err(); err != nil && t.err == nil {
				t.err = &ast.Error{Pos: ast.Pos{Filename: t.name, Line: t.line + 1, Column: 1}, Msg: "libdai: " + err.Error()}
			}
			return token{}, false
		}
		t.line++
		t.text, t.col = t.sc.Text(), 0
		if t.line == 1 {
			t.text = strings.TrimPrefix(t.text, "\uFEFF") // a byte order mark
		}
		if i := strings.IndexByte(t.text, '#'); i >= 0 {
			t.text = t.text[:i]
		}
	}
}

// peek returns the next token without consuming it.
func (t *tokenizer) peek() (token, bool) {
	tok, ok := t.next()
	if ok {
		t.ahead = &tok
	}
	return tok, ok
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// labelInfo is what the reader knows of one variable label: its
// cardinality and where it first appeared.
type labelInfo struct {
	card  int
	first ast.Pos
}

type fgParser struct {
	toks      *tokenizer
	name      string
	vars      map[int]labelInfo
	allocated int // table entries allocated so far
}

func (p *fgParser) errorf(pos ast.Pos, format string, args ...any) error {
	return &ast.Error{Pos: pos, End: pos, Msg: "libdai: " + fmt.Sprintf(format, args...)}
}

// eofPos is the position just after the last token.
func (p *fgParser) eofPos() ast.Pos {
	t := p.toks.last
	if t.text == "" {
		return ast.Pos{Filename: p.name, Line: 1, Column: 1}
	}
	t.pos.Column += len(t.text)
	return t.pos
}

func (p *fgParser) next(what string) (token, error) {
	t, ok := p.toks.next()
	if !ok {
		if p.toks.err != nil {
			return token{}, p.toks.err
		}
		return token{}, p.errorf(p.eofPos(), "unexpected end of file, expected %s", what)
	}
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

// parse reads the factors into a graph whose factors' Vars still hold
// labels (addLatents maps them to variable ids).
func (p *fgParser) parse() (*Graph, error) {
	nf, pos, err := p.int("number of factors", 0)
	if err != nil {
		return nil, err
	}
	if nf > MaxLibDAIFactors {
		return nil, p.errorf(pos, "the file announces %d factors; fg reads at most %d (a budget of %d MiB at %d bytes a factor)", nf, MaxLibDAIFactors, FactorBudget>>20, FactorBytes)
	}
	g := &Graph{}
	g.Reserve(min(nf, 1<<16)) // a file may announce more factors than it holds
	for k := 0; k < nf; k++ {
		f, err := p.factor(k)
		if err != nil {
			return nil, err
		}
		g.AddFactor(f)
	}
	if t, ok := p.toks.peek(); ok {
		return nil, p.errorf(t.pos, "unexpected %q after the %d factors announced", t.text, nf)
	}
	if p.toks.err != nil {
		return nil, p.toks.err
	}
	return g, nil
}

// factor reads factor k: its labels, cardinalities and table.
func (p *fgParser) factor(k int) (Factor, error) {
	f := Factor{Kind: "table"}
	n, pos, err := p.int(fmt.Sprintf("number of variables of factor %d", k), 0)
	if err != nil {
		return f, err
	}
	f.Pos = pos
	if n > 64 {
		return f, p.errorf(pos, "factor %d has %d variables; a dense table over more than 64 variables cannot be stored", k, n)
	}
	f.Vars = make([]int, n)
	lpos := make([]ast.Pos, n)
	for j := range f.Vars {
		if f.Vars[j], lpos[j], err = p.int("variable label", 0); err != nil {
			return f, err
		}
		if slices.Contains(f.Vars[:j], f.Vars[j]) {
			return f, p.errorf(lpos[j], "variable %d appears twice in factor %d", f.Vars[j], k)
		}
	}
	cards, err := p.cards(k, f.Vars, lpos)
	if err != nil {
		return f, err
	}
	size, err := p.tableSize(k, cards, pos)
	if err != nil {
		return f, err
	}
	f.Table = make([]float64, size)
	return f, p.entries(f.Table, k)
}

// cards reads the cardinalities of factor k's variables, checking each
// against the variable's earlier appearances.
func (p *fgParser) cards(k int, labels []int, lpos []ast.Pos) ([]int, error) {
	cards := make([]int, len(labels))
	for j, l := range labels {
		c, cpos, err := p.int("cardinality", 1)
		if err != nil {
			return nil, err
		}
		info, seen := p.vars[l]
		if seen && info.card != c {
			return nil, p.errorf(cpos, "variable %d has cardinality %d in factor %d but %d at %s", l, c, k, info.card, info.first)
		}
		if !seen {
			p.vars[l] = labelInfo{card: c, first: lpos[j]}
		}
		cards[j] = c
	}
	return cards, nil
}

// tableSize is the product of the cardinalities, refused when it exceeds
// MaxTableEntries or brings the graph over MaxGraphEntries.
func (p *fgParser) tableSize(k int, cards []int, pos ast.Pos) (int, error) {
	size := 1.0
	for _, c := range cards {
		size *= float64(c)
	}
	if size > MaxTableEntries {
		return 0, p.errorf(pos, "factor %d has %.0f table entries (the product of its cardinalities); fg's limit for one table is %d", k, size, MaxTableEntries)
	}
	if p.allocated+int(size) > MaxGraphEntries {
		return 0, p.errorf(pos, "the tables up to factor %d hold more than %d entries in all, fg's limit for one graph", k, MaxGraphEntries)
	}
	p.allocated += int(size)
	return int(size), nil
}

func (p *fgParser) entries(table []float64, k int) error {
	nnz, _, err := p.int("number of non-zero entries", 0)
	if err != nil {
		return err
	}
	for e := 0; e < nnz; e++ {
		idx, ipos, err := p.int("table index", 0)
		if err != nil {
			return err
		}
		if idx >= len(table) {
			return p.errorf(ipos, "index %d out of range 0..%d of factor %d", idx, len(table)-1, k)
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
		table[idx] = v
	}
	return nil
}

// addLatents adds one Cat latent per label, in ascending label order, and
// maps the labels in the factors' Vars to variable ids.
func (p *fgParser) addLatents(g *Graph) {
	labels := slices.Sorted(maps.Keys(p.vars))
	id := make(map[int]int, len(labels))
	for _, l := range labels {
		info := p.vars[l]
		li := g.AddLatent(strconv.Itoa(l), Cat, info.card, nil, info.first)
		id[l] = g.Latents[li].First
	}
	for i := range g.NumFactors() {
		f := g.ref(i)
		names := make([]string, len(f.Vars))
		for j, l := range f.Vars {
			f.Vars[j], names[j] = id[l], strconv.Itoa(l)
		}
		f.Label = "table(" + strings.Join(names, ", ") + ")"
	}
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
	fmt.Fprintf(bw, "%d\n", g.NumFactors())
	for fi := range g.Factors() {
		if err := writeFactor(bw, g, fi); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeFactor(bw *bufio.Writer, g *Graph, fi int) error {
	f := g.Factor(fi)
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
