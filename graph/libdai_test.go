package graph

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/fg-infer/fg/internal/datadir"
)

func libdaiFiles(t *testing.T) []string {
	t.Helper()
	dir := datadir.Dir()
	files, _ := filepath.Glob(filepath.Join(dir, "reference", "libdai", "*.fg"))
	if len(files) == 0 {
		t.Fatal("no libDAI reference models in data/reference/libdai")
	}
	return files
}

// rawFactors is an independent reading of a .fg file: it drops comment
// lines and returns the numbers of each factor block, as the file lists them.
type rawFactor struct {
	labels, cards []int
	entries       map[int]float64
}

func readRaw(t *testing.T, path string) []rawFactor {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		f = append(f, strings.Fields(line)...)
	}
	atoi := func() int { n, _ := strconv.Atoi(f[0]); f = f[1:]; return n }
	nf := atoi()
	out := make([]rawFactor, nf)
	for k := range out {
		n := atoi()
		r := rawFactor{entries: map[int]float64{}}
		for j := 0; j < n; j++ {
			r.labels = append(r.labels, atoi())
		}
		for j := 0; j < n; j++ {
			r.cards = append(r.cards, atoi())
		}
		m := atoi()
		for j := 0; j < m; j++ {
			i := atoi()
			v, _ := strconv.ParseFloat(f[0], 64)
			f = f[1:]
			r.entries[i] = v
		}
		out[k] = r
	}
	return out
}

func TestReadLibDAIReferenceModels(t *testing.T) {
	for _, path := range libdaiFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			g, err := ReadLibDAI(path, tableKind{})
			if err != nil {
				t.Fatal(err)
			}
			raw := readRaw(t, path)
			if g.NumFactors() != len(raw) {
				t.Fatalf("factors: got %d want %d", g.NumFactors(), len(raw))
			}
			for k, r := range raw {
				checkFactor(t, g, k, r)
			}
			checkLabelsAgainstJTree(t, g, strings.TrimSuffix(path, ".fg")+".jtree.tsv")
		})
	}
}

func checkFactor(t *testing.T, g *Graph, k int, r rawFactor) {
	f := g.Factor(k)
	size := 1
	for j, l := range r.labels {
		v := f.Vars[j]
		if g.VarName(v) != strconv.Itoa(l) || g.Vars[v].Card != r.cards[j] || g.Vars[v].Domain != Cat {
			t.Fatalf("factor %d var %d: got %s card %d, want %d card %d", k, j, g.VarName(v), g.Vars[v].Card, l, r.cards[j])
		}
		size *= r.cards[j]
	}
	if len(f.Table) != size {
		t.Fatalf("factor %d: table size %d want %d", k, len(f.Table), size)
	}
	for i, x := range f.Table {
		if x != r.entries[i] {
			t.Fatalf("factor %d entry %d: got %v want %v", k, i, x, r.entries[i])
		}
	}
}

// checkLabelsAgainstJTree checks that the variables, in id order, are the
// labels libDAI lists in its marginal output, with as many states.
func checkLabelsAgainstJTree(t *testing.T, g *Graph, tsv string) {
	data, err := os.ReadFile(tsv)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if f[0] != "var" {
			continue
		}
		if n >= len(g.Vars) || g.VarName(n) != f[1] || g.Vars[n].Card != len(f)-2 {
			t.Fatalf("variable %d: libDAI lists %q with %d states", n, f[1], len(f)-2)
		}
		n++
	}
	if n != len(g.Vars) {
		t.Fatalf("libDAI lists %d variables, graph has %d", n, len(g.Vars))
	}
}

func TestLibDAIKnownEntries(t *testing.T) {
	dir := datadir.Dir()
	g, err := ReadLibDAI(filepath.Join(dir, "reference", "libdai", "ising_grid4x4_seed1.fg"), tableKind{})
	if err != nil {
		t.Fatal(err)
	}
	// First block of the file: variables 0 4, table 3.13448 0.319032 0.319032 3.13448.
	f := g.Factor(0)
	want := []float64{3.13448, 0.319032, 0.319032, 3.13448}
	if g.VarName(f.Vars[0]) != "0" || g.VarName(f.Vars[1]) != "4" {
		t.Fatalf("vars %v", f.Vars)
	}
	for i, w := range want {
		if f.Table[i] != w {
			t.Fatalf("entry %d = %v want %v", i, f.Table[i], w)
		}
	}
	if len(g.Vars) != 16 || g.NumFactors() != 40 {
		t.Fatalf("got %d vars %d factors", len(g.Vars), g.NumFactors())
	}
}

func TestLibDAIRoundTrip(t *testing.T) {
	src := "# comment\n2\n\n2\n3 1\n2 3\n3\n0 0.5\n4 2 # trailing comment\n5 1e-3\n\n1\n3\n2\n1\n1 7\n"
	g, err := ParseLibDAI(strings.NewReader(src), "rt.fg", tableKind{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Vars) != 2 || g.VarName(0) != "1" || g.VarName(1) != "3" || g.Vars[0].Card != 3 || g.Vars[1].Card != 2 {
		t.Fatalf("variables: %+v", g.Vars)
	}
	if got := g.Factor(0).Vars; got[0] != 1 || got[1] != 0 {
		t.Fatalf("factor 0 vars %v", got)
	}
	var buf bytes.Buffer
	if err := WriteLibDAI(&buf, g); err != nil {
		t.Fatal(err)
	}
	g2, err := ParseLibDAI(&buf, "rt2.fg", tableKind{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range g.Factors() {
		for i, x := range g.Factor(k).Table {
			if g2.Factor(k).Table[i] != x {
				t.Fatalf("factor %d entry %d: %v != %v", k, i, g2.Factor(k).Table[i], x)
			}
		}
	}
}

func TestLibDAIErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"", "bad.fg:1:1: libdai: unexpected end of file, expected number of factors"},
		{"x", "bad.fg:1:1: libdai: expected number of factors (an integer), found \"x\""},
		{"1\n\n2\n0 1\n2 2\n1\n4 1\n", "bad.fg:7:1: libdai: index 4 out of range 0..3 of factor 0"},
		{"1\n\n2\n0 0\n2 2\n0\n", "bad.fg:4:3: libdai: variable 0 appears twice in factor 0"},
		{"1\n\n1\n0\n0\n", "bad.fg:5:1: libdai: cardinality must be at least 1, found 0"},
		{"1\n\n1\n0\n2\n1\n0 -1\n", "bad.fg:7:3: libdai: negative table value -1 in factor 0"},
		{"1\n\n1\n0\n2\n1\n0 nan\n", "bad.fg:7:3: libdai: expected a finite table value, found \"nan\""},
		{"2\n1\n0\n2\n0\n1\n0\n3\n0\n", "bad.fg:8:1: libdai: variable 0 has cardinality 3 in factor 1 but 2 at bad.fg:3:1"},
		{"1\n1\n0\n2\n0\n7\n", "bad.fg:6:1: libdai: unexpected \"7\" after the 1 factors announced"},
		{"1\n1\n0\n2\n2\n0 1\n", "bad.fg:6:4: libdai: unexpected end of file, expected table index"},
		// Sizes are refused before anything they size is allocated.
		{"8388609\n", "bad.fg:1:1: libdai: the file announces 8388609 factors; fg reads at most 8388608 (a budget of 2048 MiB at 256 bytes a factor)"},
		{"1\n1\n0\n1000000000\n0\n", "bad.fg:2:1: libdai: factor 0 has 1000000000 table entries (the product of its cardinalities); fg's limit for one table is 16777216"},
		{"1\n30\n" + seq(30) + "\n" + strings.Repeat("2 ", 30) + "\n0\n",
			"bad.fg:2:1: libdai: factor 0 has 1073741824 table entries (the product of its cardinalities); fg's limit for one table is 16777216"},
		{"1\n65\n", "bad.fg:2:1: libdai: factor 0 has 65 variables; a dense table over more than 64 variables cannot be stored"},
		{"5\n" + strings.Repeat("1\n0\n16777216\n0\n", 5), "bad.fg:18:1: libdai: the tables up to factor 4 hold more than 67108864 entries in all, fg's limit for one graph"},
	}
	for _, c := range cases {
		_, err := ParseLibDAI(strings.NewReader(c.src), "bad.fg", tableKind{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

func seq(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(i)
	}
	return strings.Join(parts, " ")
}

// factorStream generates a libDAI file of n one-variable factors, each over
// its own binary variable, without holding the text in memory.
type factorStream struct {
	n, k int
	buf  []byte
}

func (s *factorStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		switch {
		case s.k == 0:
			s.buf = fmt.Appendf(nil, "%d\n", s.n)
		case s.k > s.n:
			return 0, io.EOF
		default:
			s.buf = fmt.Appendf(nil, "\n1\n%d\n2\n2\n0 1\n1 2\n", s.k-1)
		}
		s.k++
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// TestLibDAIManyFactors reads a file of 3·10⁶ one-variable factors (10⁵
// with -short), as many as a 1000×1000 Ising grid's: the reader streams its
// tokens.
func TestLibDAIManyFactors(t *testing.T) {
	n := 3_000_000
	if testing.Short() {
		n = 100_000
	}
	g, err := ParseLibDAI(&factorStream{n: n}, "many.fg", tableKind{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumFactors() != n || len(g.Vars) != n {
		t.Fatalf("%d factors, %d variables; want %d", g.NumFactors(), len(g.Vars), n)
	}
	last := g.Factor(n - 1)
	if last.Vars[0] != n-1 || last.Table[1] != 2 || g.FactorLabel(n-1) != fmt.Sprintf("table(%d)", n-1) {
		t.Errorf("last factor %+v", last)
	}
}

// TestLibDAIBufferBoundaries: the scanner refills its 1 MiB buffer in the
// middle of tokens and of a comment longer than the buffer; read in one go,
// one byte at a time or in odd chunks, the graph is the independent
// reading's (readRaw), factor for factor.
func TestLibDAIBufferBoundaries(t *testing.T) {
	var b strings.Builder
	n := 30000
	fmt.Fprintf(&b, "%d\n", n)
	for k := range n {
		if k == n/2 {
			b.WriteString("# " + strings.Repeat("long comment ", (scanBuf+4096)/13) + "\n")
		}
		fmt.Fprintf(&b, "\n2\n%d %d\n2 3\n6\n", k, k+n)
		for i := range 6 {
			fmt.Fprintf(&b, "%d %.17g\n", i, 0.1+float64(k%7)+float64(i)/3)
		}
	}
	src := b.String()
	path := filepath.Join(t.TempDir(), "long.fg")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := readRaw(t, path)
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(src) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(src)) },
		"chunks":   func() io.Reader { return &chunkReader{r: strings.NewReader(src), n: 4093} },
	}
	for name, r := range readers {
		g, err := ParseLibDAI(r(), "long.fg", tableKind{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.NumFactors() != n || len(g.Vars) != 2*n {
			t.Fatalf("%s: %d factors %d vars", name, g.NumFactors(), len(g.Vars))
		}
		for k, r := range raw {
			checkFactor(t, g, k, r)
		}
	}
}

// chunkReader returns at most n bytes a call.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// TestLibDAIScannerErrors: a token longer than the buffer and a failing
// reader are errors with positions, not panics or silent truncation.
func TestLibDAIScannerErrors(t *testing.T) {
	long := "1\n1\n0\n2\n1\n0 " + strings.Repeat("1", scanBuf+10) + "\n"
	if _, err := ParseLibDAI(strings.NewReader(long), "long.fg", tableKind{}); err == nil || !strings.Contains(err.Error(), "long.fg:6:3: libdai: a token of more than 1 MiB") {
		t.Errorf("long token: %v", err)
	}
	failing := io.MultiReader(strings.NewReader("2\n1\n0\n2\n1\n0 1\n"), iotest.ErrReader(errors.New("disk on fire")))
	if _, err := ParseLibDAI(failing, "f.fg", tableKind{}); err == nil || !strings.Contains(err.Error(), "f.fg:7:1: libdai: disk on fire") {
		t.Errorf("read error: %v", err)
	}
}

// TestLibDAICompactStorage: factors are stored in compact runs — one per
// stretch of blocks with the same number of variables and table size —
// and a table equal to the previous block's is stored once.
func TestLibDAICompactStorage(t *testing.T) {
	src := "5\n" +
		"1\n0\n2\n2\n0 1\n1 2\n" + // field
		"2\n0 1\n2 2\n4\n0 2\n1 0.5\n2 0.5\n3 2\n" + // coupling A
		"2\n1 2\n2 2\n4\n0 2\n1 0.5\n2 0.5\n3 2\n" + // A again: shared
		"2\n2 3\n2 2\n4\n0 3\n1 0.5\n2 0.5\n3 2\n" + // B
		"1\n3\n2\n2\n0 1\n1 2\n" // a field again: a new run
	g, err := ParseLibDAI(strings.NewReader(src), "c.fg", tableKind{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.factors.runs) != 3 {
		t.Fatalf("%d runs, want 3", len(g.factors.runs))
	}
	for _, r := range g.factors.runs {
		if r.c == nil {
			t.Fatal("a list run")
		}
	}
	a, a2, b := g.Factor(1), g.Factor(2), g.Factor(3)
	if &a.Table[0] != &a2.Table[0] || &a.Table[0] == &b.Table[0] || b.Table[0] != 3 || a2.Vars[0] != 1 || a2.Vars[1] != 2 {
		t.Errorf("tables: %v %v %v", a, a2, b)
	}
	if got := len(g.factors.runs[1].c.tab); got != 8 {
		t.Errorf("the coupling run holds %d table entries, want 8 (A once, B)", got)
	}
	if g.FactorLabel(2) != "table(1, 2)" || g.Fset.Position(g.Factor(2).Pos).Line != 8 {
		t.Errorf("label %q pos %v", g.FactorLabel(2), g.Fset.Position(g.Factor(2).Pos))
	}
}

// TestLibDAISparseLabels: labels far apart (up to 10¹⁵) are numbered in
// ascending order without an array as long as the largest label.
func TestLibDAISparseLabels(t *testing.T) {
	src := "3\n1\n1000000000000000\n2\n1\n0 1\n2\n5 77777777777\n2 3\n1\n0 1\n1\n5\n2\n1\n1 1\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := ParseLibDAI(strings.NewReader(src), "s.fg", tableKind{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Vars) != 3 || g.VarName(0) != "5" || g.VarName(1) != "77777777777" || g.VarName(2) != "1000000000000000" || g.Vars[1].Card != 3 {
		t.Fatalf("vars %v %s %s %s", g.Vars, g.VarName(0), g.VarName(1), g.VarName(2))
	}
	if f := g.Factor(1); f.Vars[0] != 0 || f.Vars[1] != 1 || len(f.Table) != 6 {
		t.Errorf("factor 1: %+v", f)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 8<<20 {
		t.Errorf("allocated %d bytes for 3 labels", d)
	}
}
