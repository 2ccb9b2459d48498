// Package testkit holds the helpers that fg's tests share: golden files
// with an -update flag (go/printer's printer_test.go style), inline error
// markers `### "regexp"` in testdata files (starlark-go style), stop latency
// measured in CPU time (cpu.go), and independent oracles written in the
// plainest form — Gaussian conditioning in covariance form, a Kalman chain,
// a one-site probit posterior, a grid forward–backward smoother — that
// message passing is held to. Only tests import it.
package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Golden compares got with the golden file at path; with update it first
// rewrites the file (creating its folder). A difference is reported with
// the first differing line.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it): %s", path, FirstDiff(string(want), string(got)))
	}
}

// GoldenSection compares got with the section of the file at path between
// the lines `<!-- marker:begin -->` and `<!-- marker:end -->` (a table of
// the docs generated from code); with update it rewrites the section.
func GoldenSection(t testing.TB, path, marker, got string, update bool) {
	t.Helper()
	begin, end := "<!-- "+marker+":begin -->\n", "<!-- "+marker+":end -->"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	b, e := strings.Index(doc, begin), strings.Index(doc, end)
	if b < 0 || e < b {
		t.Fatalf("%s: %s markers missing", path, marker)
	}
	want := doc[b+len(begin) : e]
	if want == got {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(doc[:b+len(begin)]+got+doc[e:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the %s section differs from the one generated (go test -update rewrites it): %s\ngenerated:\n%s", path, marker, FirstDiff(want, got), got)
}

// FirstDiff describes the first line where want and got differ.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}

var marker = regexp.MustCompile(`###\s*"((?:[^"\\]|\\.)*)"`)

// Markers reads the `### "regexp"` markers of an error test file: line
// number → the patterns that must each match an error on that line. The
// pattern is taken literally between the quotes, except that \" stands for
// a quote. A marker on a line starting with "// file:" is about the file
// as a whole and is filed under line 0.
func Markers(t testing.TB, src []byte) map[int][]*regexp.Regexp {
	t.Helper()
	out := map[int][]*regexp.Regexp{}
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		if strings.HasPrefix(line, "// file:") {
			n = 0
		}
		for _, m := range marker.FindAllStringSubmatch(line, -1) {
			rx, err := regexp.Compile(strings.ReplaceAll(m[1], `\"`, `"`))
			if err != nil {
				t.Fatalf("line %d: bad marker %q: %v", i+1, m[1], err)
			}
			out[n] = append(out[n], rx)
		}
	}
	return out
}

// SimpsonCoef is the weight of node i of composite Simpson's rule on n
// intervals (n even), in units of h/3: 1, 4, 2, 4, …, 2, 4, 1.
func SimpsonCoef(i, n int) float64 {
	switch {
	case i == 0 || i == n:
		return 1
	case i%2 == 1:
		return 4
	}
	return 2
}
