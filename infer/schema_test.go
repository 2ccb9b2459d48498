package infer

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the option tables of docs/language.md and docs/learn.md")

// TestOptionTablesDocs keeps the option tables of the docs equal to the
// tables generated from the schema (Markdown, LearnMarkdown); -update
// rewrites them.
func TestOptionTablesDocs(t *testing.T) {
	for _, c := range []struct {
		path, marker, want string
	}{
		{"../docs/language.md", "options", Markdown()},
		{"../docs/learn.md", "learnoptions", LearnMarkdown()},
	} {
		begin, end := "<!-- "+c.marker+":begin -->\n", "<!-- "+c.marker+":end -->"
		raw, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(raw)
		b, e := strings.Index(doc, begin), strings.Index(doc, end)
		if b < 0 || e < b {
			t.Fatalf("%s: %s markers missing", c.path, c.marker)
		}
		if doc[b+len(begin):e] == c.want {
			continue
		}
		if *update {
			if err := os.WriteFile(c.path, []byte(doc[:b+len(begin)]+c.want+doc[e:]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("the option table in %s differs from the schema's (go test ./infer -run TestOptionTablesDocs -update rewrites it):\n%s", c.path, c.want)
	}
}
