package graph

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
)

// ReadLibDAI reads a factor graph in libDAI's plain-text .fg format from the
// file at path, its factors of kind table. See ParseLibDAI for the mapping
// onto Graph.
func ReadLibDAI(path string, table Kind) (*Graph, error) {
	f, err := safefile.Open(nil, path, safefile.MaxLibDAI)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLibDAI(f, path, table)
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
// ids follow label order. Each block becomes a factor of kind table whose
// Vars are in the order listed in the file and whose dense table keeps the
// file's index order; entries not listed are zero. Errors are *ast.Error
// values naming the file, line and column. The graph's positions are in
// a file set of its own (Graph.Fset).
//
// The caller gives the table kind (factor.Table{}): graph cannot name
// package factor's kinds, which import graph, and a kind of graph's own
// would be a second type for the same kind, missed by every type switch on
// factor.Table.
//
// The text is read in one pass through a 1 MiB buffer and the factors go
// straight into compact runs (graph/factors.go): consecutive blocks with
// the same number of variables and table size form one run, whose columns
// hold their variables and tables, a table shared with the block before
// when equal; there is no Go value per factor, and the run's position is
// its first block's. A factor label, table(3, 7), is made on demand
// (FactorLabel). A 1000×1000 createfg grid (3·10⁶ blocks) is two runs.
func ParseLibDAI(r io.Reader, name string, table Kind) (*Graph, error) {
	return ParseLibDAINamed(ast.NewFileSet(), r, name, "", table)
}

// ParseLibDAINamed is ParseLibDAI with the latents named prefix+label
// (compile names them x3, x7, ...) and the file added to fset, as a
// stream of at most safefile.MaxLibDAI bytes whose line table holds the
// lines of the positions the graph keeps (a latent's first appearance, a
// run's first block).
func ParseLibDAINamed(fset *ast.FileSet, r io.Reader, name, prefix string, table Kind) (*Graph, error) {
	if table == nil {
		panic("graph: ParseLibDAINamed without a table kind")
	}
	file := fset.AddStream(name, safefile.MaxLibDAI)
	p := &fgParser{s: newScanner(r, file), lpos: make([]ast.Position, 64), kind: table}
	g, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.addLatents(g, prefix)
	g.Fset = fset
	return g, nil
}

// Limits of the libDAI reader, checked before anything they size is
// allocated: a file may announce at most MaxLibDAIFactors factors (the
// factor budget of a graph, MaxFactors, the same as the compiler's), one
// table may hold at most MaxTableEntries entries (2²⁴ float64s, 128 MiB:
// 24 binary variables, or one variable with 16 777 216 states), all the
// tables of a graph together at most MaxGraphEntries (512 MiB), and the
// factors' variable lists together at most MaxGraphEntries slots (512 MiB).
const (
	MaxLibDAIFactors = MaxFactors
	MaxTableEntries  = 1 << 24
	MaxGraphEntries  = 1 << 26
)

// labelInfo is what the reader knows of one variable label: its
// cardinality and where it first appeared.
type labelInfo struct {
	label int
	card  int32
	pos   ast.Pos
}

type fgParser struct {
	s    *scanner
	kind Kind // of the factors: the table kind
	// the labels seen, in order of first appearance; a label's index is
	// dense[label]-1 for labels below len(dense), else sparse[label]
	labels []labelInfo
	dense  []int32
	sparse map[int]int32
	// entries and variable slots allocated so far
	entries, slots int
	// the block being read; tables alternate between two buffers, so
	// that a table equal to the previous one is passed as the same slice
	// (AddCompact stores it once) and a different one as another slice
	vars     []int
	lpos     []ast.Position // the labels of the block being read
	tabs     [2][]float64
	cur      int
	prevSize int
	runPos   ast.Pos
	runKey   [2]int
}

func (p *fgParser) errorf(pos ast.Position, format string, args ...any) error {
	return &ast.Error{Pos: pos, End: pos, Msg: "libdai: " + fmt.Sprintf(format, args...)}
}

// keep returns the Pos of a position the graph keeps, recording its line
// in the file's line table.
func (p *fgParser) keep(at ast.Position) ast.Pos {
	p.s.file.AddLine(at.Offset-at.Column+1, at.Line)
	return p.s.file.Pos(at.Offset)
}

// next reads the next token, failing at the end of the input.
func (p *fgParser) next(what string) error {
	if !p.s.next() {
		if p.s.err != nil {
			return p.s.err
		}
		return p.errorf(p.s.eofPosition(), "unexpected end of file, expected %s", what)
	}
	return nil
}

// int reads a non-negative integer no smaller than min.
func (p *fgParser) int(what string, min int) (int, error) {
	return p.intK(what, -1, min)
}

// intK is int for what naming factor k (a %d in what, formatted only for
// an error message) when k ≥ 0.
func (p *fgParser) intK(what string, k, min int) (int, error) {
	name := func() string {
		if k >= 0 {
			return fmt.Sprintf(what, k)
		}
		return what
	}
	if !p.s.next() {
		if p.s.err != nil {
			return 0, p.s.err
		}
		return 0, p.errorf(p.s.eofPosition(), "unexpected end of file, expected %s", name())
	}
	v, ok := atoi(p.s.tok)
	if !ok {
		return 0, p.errorf(p.s.tokPosition(), "expected %s (an integer), found %q", name(), p.s.tok)
	}
	if v < min {
		return 0, p.errorf(p.s.tokPosition(), "%s must be at least %d, found %d", name(), min, v)
	}
	return v, nil
}

// parse reads the factors into a graph whose factors' Vars hold label
// indices (addLatents maps them to variable ids).
func (p *fgParser) parse() (*Graph, error) {
	nf, err := p.int("number of factors", 0)
	if err != nil {
		return nil, err
	}
	if nf > MaxLibDAIFactors {
		return nil, p.errorf(p.s.tokPosition(), "the file announces %d factors; fg reads at most %d (a budget of %d MiB at %d bytes a factor)", nf, MaxLibDAIFactors, FactorBudget>>20, FactorBytes)
	}
	g := &Graph{}
	g.Reserve(min(nf, 1<<16)) // a file may announce more factors than it holds
	p.runKey = [2]int{-1, -1}
	for k := 0; k < nf; k++ {
		if err := p.factor(g, k); err != nil {
			return nil, err
		}
	}
	if p.s.peek() {
		return nil, p.errorf(p.s.tokPosition(), "unexpected %q after the %d factors announced", p.s.tok, nf)
	}
	if p.s.err != nil {
		return nil, p.s.err
	}
	return g, nil
}

// factor reads factor k — its labels, cardinalities and table — and adds
// it to g.
func (p *fgParser) factor(g *Graph, k int) error {
	n, err := p.intK("number of variables of factor %d", k, 0)
	if err != nil {
		return err
	}
	at := p.s.tokPosition()
	if n > 64 {
		return p.errorf(at, "factor %d has %d variables; a dense table over more than 64 variables cannot be stored", k, n)
	}
	if p.slots+n > MaxGraphEntries {
		return p.errorf(at, "the factors up to factor %d list more than %d variables in all, fg's limit for one graph", k, MaxGraphEntries)
	}
	p.slots += n
	vars, lpos := p.vars[:0], p.lpos[:n]
	for j := 0; j < n; j++ {
		l, err := p.int("variable label", 0)
		if err != nil {
			return err
		}
		lpos[j] = p.s.tokPosition()
		if slices.Contains(vars, l) {
			return p.errorf(p.s.tokPosition(), "variable %d appears twice in factor %d", l, k)
		}
		vars = append(vars, l)
	}
	p.vars = vars
	size := 1.0
	for j, l := range vars {
		c, err := p.int("cardinality", 1)
		if err != nil {
			return err
		}
		if vars[j], err = p.index(l, c, k, lpos[j]); err != nil {
			return err
		}
		size *= float64(c)
	}
	if size > MaxTableEntries {
		return p.errorf(at, "factor %d has %.0f table entries (the product of its cardinalities); fg's limit for one table is %d", k, size, MaxTableEntries)
	}
	if p.entries+int(size) > MaxGraphEntries {
		return p.errorf(at, "the tables up to factor %d hold more than %d entries in all, fg's limit for one graph", k, MaxGraphEntries)
	}
	p.entries += int(size)
	table := p.table(int(size))
	if err := p.values(table, k); err != nil {
		return err
	}
	prev := p.tabs[1-p.cur]
	if p.prevSize == len(table) && slices.Equal(table, prev[:len(table)]) {
		table = prev[:len(table)] // the previous factor's slice: shared
	} else {
		p.cur = 1 - p.cur
	}
	p.prevSize = len(table)
	if key := [2]int{n, len(table)}; key != p.runKey {
		p.runKey, p.runPos = key, p.keep(at)
	}
	g.AddCompact(p.kind, p.runPos, "", 0, table, vars...)
	return nil
}

// table is a zeroed buffer of size entries, not the one holding the
// previous factor's table.
func (p *fgParser) table(size int) []float64 {
	t := p.tabs[p.cur]
	if cap(t) < size {
		t = make([]float64, size)
	}
	t = t[:size]
	clear(t)
	p.tabs[p.cur] = t
	return t
}

// index is the index of label l of cardinality c, checked against the
// label's earlier appearances or recorded as a new label.
func (p *fgParser) index(l, c, k int, lpos ast.Position) (int, error) {
	i, seen := p.lookup(l)
	if seen {
		info := p.labels[i]
		if int(info.card) != c {
			first := p.s.file.Position(info.pos)
			return 0, p.errorf(p.s.tokPosition(), "variable %d has cardinality %d in factor %d but %d at %s", l, c, k, info.card, first)
		}
		return i, nil
	}
	if c > math.MaxInt32 {
		return 0, p.errorf(p.s.tokPosition(), "cardinality %d of variable %d: fg's limit is %d", c, l, math.MaxInt32)
	}
	i = len(p.labels)
	p.labels = append(p.labels, labelInfo{label: l, card: int32(c), pos: p.keep(lpos)})
	// Labels index a dense array while it stays within a few times the
	// labels seen (a file's labels are usually 0..N−1), else a map.
	if l < len(p.dense) || l < max(1<<16, 4*len(p.labels)) {
		if l >= len(p.dense) {
			p.dense = slices.Grow(p.dense, l+1-len(p.dense))[:l+1]
		}
		p.dense[l] = int32(i + 1)
	} else {
		if p.sparse == nil {
			p.sparse = map[int]int32{}
		}
		p.sparse[l] = int32(i)
	}
	return i, nil
}

func (p *fgParser) lookup(l int) (int, bool) {
	if l < len(p.dense) {
		i := p.dense[l]
		return int(i) - 1, i > 0
	}
	i, ok := p.sparse[l]
	return int(i), ok
}

// values reads the non-zero entries of factor k into table.
func (p *fgParser) values(table []float64, k int) error {
	nnz, err := p.int("number of non-zero entries", 0)
	if err != nil {
		return err
	}
	for e := 0; e < nnz; e++ {
		idx, err := p.int("table index", 0)
		if err != nil {
			return err
		}
		if idx >= len(table) {
			return p.errorf(p.s.tokPosition(), "index %d out of range 0..%d of factor %d", idx, len(table)-1, k)
		}
		if err := p.next("table value"); err != nil {
			return err
		}
		v, ok := atof(p.s.tok)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return p.errorf(p.s.tokPosition(), "expected a finite table value, found %q", p.s.tok)
		}
		if v < 0 {
			return p.errorf(p.s.tokPosition(), "negative table value %s in factor %d", p.s.tok, k)
		}
		table[idx] = v
	}
	return nil
}

// addLatents adds one Cat latent per label, named prefix+label, in
// ascending label order, and maps the label indices in the factors'
// variable columns to variable ids. The names share one string.
func (p *fgParser) addLatents(g *Graph, prefix string) {
	order := make([]int32, 0, len(p.labels))
	for _, i := range p.dense {
		if i > 0 {
			order = append(order, i-1)
		}
	}
	if len(p.sparse) > 0 { // all above the dense labels
		rest := make([]int32, 0, len(p.sparse))
		for _, i := range p.sparse {
			rest = append(rest, i)
		}
		slices.SortFunc(rest, func(a, b int32) int { return cmp.Compare(p.labels[a].label, p.labels[b].label) })
		order = append(order, rest...)
	}
	p.dense, p.sparse = nil, nil
	var names []byte
	ends := make([]int, len(order))
	for k, i := range order {
		names = append(names, prefix...)
		names = strconv.AppendInt(names, int64(p.labels[i].label), 10)
		ends[k] = len(names)
	}
	all := string(names)
	g.Latents = slices.Grow(g.Latents, len(order))
	g.Vars = slices.Grow(g.Vars, len(order))
	id := make([]int32, len(p.labels))
	start := 0
	for k, i := range order {
		info := p.labels[i]
		li := g.AddLatent(all[start:ends[k]], Cat, int(info.card), nil, info.pos)
		id[i] = int32(g.Latents[li].First)
		start = ends[k]
	}
	for ri := range g.factors.runs {
		c := g.factors.runs[ri].c
		for j, v := range c.vars {
			c.vars[j] = int(id[v])
		}
		c.last = nil
	}
	g.adj = nil
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
