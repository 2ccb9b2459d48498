package diag

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

func pos(line, col int) ast.Position {
	return ast.Position{Filename: "m.fg", Line: line, Column: col, Offset: -1}
}

func files(name string) ([]byte, bool) {
	if name != "m.fg" {
		return nil, false
	}
	return []byte("model m\n  y[i] ~ probitt(f[i])\n\tx ~ normal(0, 1)\nlatent θ: real ~ nrml(0, 1)\n"), true
}

func TestRender(t *testing.T) {
	var list ast.ErrorList
	list.Add(pos(2, 10), pos(2, 17), "unknown distribution `probitt`%s", DidYouMean("probitt", []string{"normal", "probit"}))
	list.Add(pos(3, 2), ast.Position{}, "no end")
	list.Add(pos(4, 19), pos(4, 23), "unicode before")
	list.Add(pos(9, 1), pos(9, 2), "line beyond the file")
	list.Add(ast.Position{}, ast.Position{}, "no position")
	list.Add(ast.Position{Filename: "other.fg"}, ast.Position{}, "file only")
	list.Add(pos(2, 40), pos(2, 45), "column past the end")
	var b bytes.Buffer
	Render(&b, fmt.Errorf("wrapped: %w", list), files)
	want := strings.Join([]string{
		"m.fg:2:10: error: unknown distribution `probitt`; did you mean `probit`?",
		"  2 |   y[i] ~ probitt(f[i])",
		"    |          ^^^^^^^",
		"m.fg:3:2: error: no end",
		"  3 | \tx ~ normal(0, 1)",
		"    | \t^^^^^^^^^^^^^^^^",
		"m.fg:4:19: error: unicode before",
		"  4 | latent θ: real ~ nrml(0, 1)",
		"    |                  ^^^^",
		"m.fg:9:1: error: line beyond the file",
		"error: no position",
		"other.fg: error: file only",
		"m.fg:2:40: error: column past the end",
		"  2 |   y[i] ~ probitt(f[i])",
		"    |                       ^",
		"",
	}, "\n")
	if got := b.String(); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenderLongLine: a long line is shown as a window around the column,
// with the carets under the error (an error at column 6009 printed a
// 6000-column line with its caret far off screen).
func TestRenderLongLine(t *testing.T) {
	line := "data x = [" + strings.Repeat("1, ", 2000) + "oops, " + strings.Repeat("2, ", 100) + "é]"
	col := strings.Index(line, "oops") + 1
	src := func(string) ([]byte, bool) { return []byte("model m\n" + line + "\n"), true }
	var list ast.ErrorList
	list.Add(pos(2, col), pos(2, col+4), "undefined: `oops`")
	var b bytes.Buffer
	Render(&b, list, src)
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 4 || len(lines[1]) > maxLine+20 {
		t.Fatalf("Render:\n%s", b.String())
	}
	shown, carets := lines[1], lines[2]
	at := strings.Index(carets, "^")
	if at < 0 || !strings.HasPrefix(carets[at:], "^^^^") || strings.Count(carets, "^") != 4 {
		t.Fatalf("caret line %q", carets)
	}
	// The caret column counts runes: the leading ellipsis is one.
	if got := string([]rune(shown)[at:][:4]); got != "oops" {
		t.Errorf("carets under %q, want oops:\n%s\n%s", got, shown, carets)
	}
	if !strings.Contains(shown, "  2 | …") || !strings.HasSuffix(shown, "…") {
		t.Errorf("cuts not marked: %q", shown)
	}
}

func TestRenderOther(t *testing.T) {
	var b bytes.Buffer
	Render(&b, errors.New("boom"), nil)
	Render(&b, nil, nil)
	Render(&b, &ast.Error{Pos: pos(1, 1), End: pos(1, 6), Msg: "one"}, files)
	want := "error: boom\nm.fg:1:1: error: one\n  1 | model m\n    | ^^^^^\n"
	if b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"normal", "probit", "step", "mvnormal", "student_t", "ising", "gp"}
	for _, c := range []struct{ name, want string }{
		{"probitt", "probit"},
		{"probti", "probit"}, // transposition
		{"nromal", "normal"}, // transposition
		{"normla", "normal"}, // transposition
		{"mvnorml", "mvnormal"},
		{"stp", "step"},
		{"gpp", "gp"},
		{"normal", "mvnormal"}, // exact name is skipped, next within 2
		{"xyz", ""},
		{"studentt", "student_t"},
		{"isingg", "ising"},
		{"", "gp"}, // limit 1 for short names: "" is 2 away from gp → none
	} {
		want := c.want
		if c.name == "" {
			want = ""
		}
		if got := Suggest(c.name, cands); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", c.name, got, want)
		}
	}
	if got := DidYouMean("xyz", cands); got != "" {
		t.Errorf("DidYouMean: %q", got)
	}
}

// osaNaive is the textbook recursive definition of the optimal string
// alignment distance, independent of the rolling-row implementation.
func osaNaive(a, b []rune) int {
	if len(a) == 0 {
		return len(b)
	}
	if len(b) == 0 {
		return len(a)
	}
	cost := 1
	if a[len(a)-1] == b[len(b)-1] {
		cost = 0
	}
	d := min(osaNaive(a[:len(a)-1], b)+1, osaNaive(a, b[:len(b)-1])+1,
		osaNaive(a[:len(a)-1], b[:len(b)-1])+cost)
	if len(a) > 1 && len(b) > 1 && a[len(a)-1] == b[len(b)-2] && a[len(a)-2] == b[len(b)-1] {
		d = min(d, osaNaive(a[:len(a)-2], b[:len(b)-2])+1)
	}
	return d
}

func TestDistanceAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		n := rng.IntN(6)
		r := make([]rune, n)
		for i := range r {
			r[i] = []rune("abcθ")[rng.IntN(4)]
		}
		return string(r)
	}
	for range 2000 {
		a, b := word(), word()
		if got, want := distance(a, b), osaNaive([]rune(a), []rune(b)); got != want {
			t.Fatalf("distance(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

func ExampleDidYouMean() {
	known := []string{"normal", "probit", "step", "student_t"}
	fmt.Println("unknown distribution `probitt`" + DidYouMean("probitt", known))
	fmt.Printf("%q\n", Suggest("gamma", known))
	// Output:
	// unknown distribution `probitt`; did you mean `probit`?
	// ""
}
