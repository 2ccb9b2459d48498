package main

import (
	"sort"
	"strings"
	"unicode"

	"github.com/fg-infer/fg/stdlib"
)

// keywords of the language (docs/language-decisions.md).
var keywords = []string{"model", "import", "data", "param", "latent", "factor", "for", "in",
	"infer", "predict", "expect", "learn", "by", "as", "and", "or", "not", "true", "false",
	"real", "spin", "bool", "int", "cat"}

// completer completes the word before the cursor with keywords, stdlib
// builtins, the session's declared names and result labels, and colon
// commands at the start of a line.
type completer struct{ s *replSession }

// Do implements readline.AutoCompleter: it returns the suffixes that
// complete the word ending at pos, and the word's length.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	start := pos
	for start > 0 && isWordRune(line[start-1]) {
		start--
	}
	word := string(line[start:pos])
	var cands []string
	if start == 0 && strings.HasPrefix(word, ":") || (start == 1 && line[0] == ':') {
		word = string(line[:pos])
		start = 0
		cands = replCommands
	} else {
		cands = c.names()
	}
	var out [][]rune
	for _, n := range cands {
		if strings.HasPrefix(n, word) && n != word {
			out = append(out, []rune(n[len(word):]))
		}
	}
	return out, pos - start
}

func isWordRune(r rune) bool {
	return r == '_' || r == ':' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// names lists every completable name, sorted and deduplicated.
func (c *completer) names() []string {
	seen := map[string]bool{}
	add := func(n string) { seen[n] = true }
	for _, k := range keywords {
		add(k)
	}
	for _, b := range stdlib.All() {
		add(b.Name)
	}
	if m := c.s.model; m != nil {
		cm := m.Compiled()
		for n := range cm.Params {
			add(n)
		}
		for n := range cm.Data {
			add(n)
		}
		if cm.Graph != nil {
			for _, l := range cm.Graph.Latents {
				add(l.Name)
			}
		}
		for _, l := range m.Labels() {
			add(l)
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
