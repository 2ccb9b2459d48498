package compile

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib"
)

// TestLanguageDocs keeps docs/language.md describing what is implemented:
// every ```fg block compiles, every builtin and infer option is
// documented (the rule table is factor's TestRuleTableDocs).
func TestLanguageDocs(t *testing.T) {
	const path = "../docs/language.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	blocks := regexp.MustCompile("(?s)```fg\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("only %d fg blocks", len(blocks))
	}
	for i, b := range blocks {
		if _, err := CompileSource(path, []byte(b[1]), Options{}); err != nil {
			t.Errorf("fg block %d does not compile: %v", i, err)
		}
	}
	for _, b := range stdlib.All() {
		if !strings.Contains(doc, "`"+b.Name) && !strings.Contains(doc, b.Name+"(") {
			t.Errorf("builtin %s %s is not documented", b.Kind, b.Name)
		}
	}
	for _, o := range infer.InferOptions.Keys() {
		if !strings.Contains(doc, "`"+o+"`") {
			t.Errorf("infer option %s is not documented", o)
		}
	}
}
