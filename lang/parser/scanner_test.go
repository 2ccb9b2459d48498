package parser

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
)

// lexDefTokens tokenises src with participle and lexDef, the definition
// the scanner must agree with.
func lexDefTokens(t *testing.T, src string) []lexer.Token {
	lx, err := lexDef.LexString("s.fg", src)
	if err != nil {
		t.Fatal(err)
	}
	var out []lexer.Token
	for {
		tok, err := lx.Next()
		if err != nil {
			t.Fatal(err)
		}
		tok.Pos.Line, tok.Pos.Column = 0, 0 // the scanner leaves them to scan
		out = append(out, tok)
		if tok.EOF() {
			return out
		}
	}
}

func scannerTokens(src string) []lexer.Token {
	s := &scanner{filename: "s.fg", src: src}
	var out []lexer.Token
	for {
		tok := s.Next()
		out = append(out, tok)
		if tok.EOF() {
			return out
		}
	}
}

func compareScanner(t *testing.T, src string) {
	t.Helper()
	want, got := lexDefTokens(t, src), scannerTokens(src)
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Errorf("%q: token %d is %v %q at %d, lexDef says %v %q at %d", src, i,
				got[i].Type, got[i].Value, got[i].Pos.Offset, want[i].Type, want[i].Value, want[i].Pos.Offset)
			return
		}
	}
	if len(want) != len(got) {
		t.Errorf("%q: %d tokens, lexDef gives %d", src, len(got), len(want))
	}
}

// TestScannerMatchesLexDef: the hand-written scanner yields lexDef's tokens
// on the corpus, on tricky fragments and on random byte strings drawn from
// the characters that matter.
func TestScannerMatchesLexDef(t *testing.T) {
	files := corpus(t)
	more, _ := filepath.Glob("testdata/errors/*.fg")
	for _, fn := range append(files, more...) {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		compareScanner(t, string(src))
	}
	for _, src := range []string{
		"", "1..n", "0.5..1", ".5e-3", "1e", "1e+", "1E+5x", "1.x", "..5", "infer", "in infer inx _in in_ in1",
		"for_x foré", "1model", `"a\"b"`, `"a\`, "\"a\\\nb\"", `"open`, "\uFEFF\uFEFFa", "# c\n// d\n/ /", "a;b\n", "\xff\xfe", "é", "!x", "!=", "=== <== >>=",
		"\"\xff\"", "\"é\\é\"",
	} {
		compareScanner(t, src)
	}
	const alphabet = "ab01.e+-\"\\\n;#/ =!<>[](){}_\t\xef\xbb\xbf\xffé"
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for range n {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		compareScanner(t, string(b))
	}
}
