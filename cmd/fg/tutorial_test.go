package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTutorial keeps docs/tutorial.md real: its fg and Go listings are the
// files docs/tutorial/first.fg and first_test.go (which go test runs), and
// every `$ fg ...` command of its console blocks prints what the tutorial
// shows, compared field by field with the time row left out.
func TestTutorial(t *testing.T) {
	root := filepath.Join("..", "..")
	md, err := os.ReadFile(filepath.Join(root, "docs", "tutorial.md"))
	if err != nil {
		t.Fatal(err)
	}
	for lang, file := range map[string]string{"fg": "first.fg", "go": "first_test.go"} {
		want, err := os.ReadFile(filepath.Join(root, "docs", "tutorial", file))
		if err != nil {
			t.Fatal(err)
		}
		if blocks := fenced(string(md), lang); len(blocks) != 1 || blocks[0] != string(want) {
			t.Errorf("the tutorial's %s listing differs from docs/tutorial/%s", lang, file)
		}
	}
	t.Chdir(root)
	n := 0
	for _, block := range fenced(string(md), "console") {
		for _, c := range consoleCommands(block) {
			n++
			out, stderr, _ := runFG(c.args...)
			if got, want := outputFields(out), outputFields(c.output); got != want {
				t.Errorf("$ fg %s\nprints\n%s%s\nthe tutorial shows\n%s", strings.Join(c.args, " "), out, stderr, c.output)
			}
		}
	}
	if n < 5 {
		t.Errorf("found %d commands in the tutorial", n)
	}
}

// fenced returns the bodies of the ```lang blocks of a markdown text.
func fenced(md, lang string) []string {
	re := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

type consoleCommand struct {
	args   []string
	output string
}

// consoleCommands splits a console block into `$ fg ARGS` lines and the
// output shown after each.
func consoleCommands(block string) []consoleCommand {
	var out []consoleCommand
	for _, line := range strings.SplitAfter(block, "\n") {
		if rest, ok := strings.CutPrefix(line, "$ fg "); ok {
			out = append(out, consoleCommand{args: shellWords(strings.TrimSpace(rest))})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].output += line
		}
	}
	return out
}

// shellWords splits a command line at spaces outside single quotes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// outputFields normalises output for comparison: each line's fields joined
// by one space, blank lines and the time row (wall clock) left out.
func outputFields(s string) string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "time" {
			continue
		}
		lines = append(lines, strings.Join(f, " "))
	}
	return strings.Join(lines, "\n")
}
