package parser

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/fg-infer/fg/lang/ast"
)

// statements cuts src into the token lists fileParse.block hands to
// parseStmt: the filtered tokens between top-level terminators, each
// ending in an EOF token.
func statements(src []byte) [][]lexer.Token {
	toks := filterTokens(scan(ast.NewFileSet().AddFile("t.fg", src), src).toks).out
	var out [][]lexer.Token
	topLevel(toks[:len(toks)-1], toks[len(toks)-1], func(stmt []lexer.Token, term lexer.Token) bool {
		if len(stmt) > 0 {
			out = append(out, withEOF(stmt, term))
		}
		return true
	})
	return out
}

// compareFast checks the fast parser against participle on one statement:
// when the fast parser accepts it, participle accepts it too and builds the
// same grammar values. It returns whether participle accepted it.
func compareFast(t *testing.T, where string, toks []lexer.Token) bool {
	t.Helper()
	want, err := fileParser.ParseFromLexer(peeking(toks))
	got, ok := fastStmt(toks)
	switch {
	case ok && err != nil:
		t.Errorf("%s: fast parser accepts what participle rejects (%v): %s", where, err, tokText(toks))
	case ok && (len(want.Stmts) != 1 || !reflect.DeepEqual(got, want.Stmts[0])):
		t.Errorf("%s: fast parser and participle disagree on %s", where, tokText(toks))
	}
	return err == nil
}

func tokText(toks []lexer.Token) string {
	s := ""
	for _, t := range toks {
		s += t.Value + " "
	}
	return s
}

// TestFastParseMatchesParticiple runs both parsers on every statement of
// the corpus, the error files and the fuzz seeds: the fast parser must
// build participle's values, and accept every statement participle accepts
// (a statement it gives up on is parsed by participle: correct, but slow).
func TestFastParseMatchesParticiple(t *testing.T) {
	files := corpus(t)
	for _, pat := range []string{"testdata/errors/*.fg", "testdata/fuzz/*/*", "../../compile/testdata/*/*.fg", "../../cmd/fg/testdata/*.fg"} {
		more, _ := filepath.Glob(pat)
		files = append(files, more...)
	}
	n, slow := 0, 0
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		for _, toks := range statements(src) {
			if compareFast(t, fn, toks) {
				n++
				if _, ok := fastStmt(toks); !ok {
					slow++
					t.Errorf("%s: fast parser gives up on a valid statement: %s", fn, tokText(toks))
				}
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d valid statements compared", n)
	}
	t.Logf("%d valid statements, %d left to participle", n, slow)
}

// FuzzFastParse: on any input the fast parser builds participle's values
// or gives up. Run with go test -fuzz=FuzzFastParse.
func FuzzFastParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/errors/*.fg")
	for _, fn := range append(seeds, corpus(f)...) {
		if src, err := os.ReadFile(fn); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, toks := range statements(src) {
			compareFast(t, "fuzz", toks)
		}
	})
}

// TestFastParseMutations compares the two parsers on corpus statements with
// a token deleted, duplicated or swapped with its neighbour: near-valid
// input is where a hand-written parser would accept too much.
func TestFastParseMutations(t *testing.T) {
	var stmts [][]lexer.Token
	for _, fn := range corpus(t) {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, statements(src)...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 4000
	if testing.Short() {
		n = 1000
	}
	for range n {
		s := stmts[rng.IntN(len(stmts))]
		body := slices.Clone(s[:len(s)-1])
		k := rng.IntN(len(body))
		switch rng.IntN(3) {
		case 0:
			body = slices.Delete(body, k, k+1)
		case 1:
			body = slices.Insert(body, k, body[k])
		default:
			if k+1 < len(body) {
				body[k], body[k+1] = body[k+1], body[k]
			}
		}
		if len(body) > 0 {
			compareFast(t, "mutation", append(body, s[len(s)-1]))
		}
	}
}
