package factor

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the rule table in docs/language.md")

const docsPath = "../docs/language.md"

// TestRuleTableDocs keeps the rule table in docs/language.md equal to the
// table derived from the kinds' types (Markdown); -update rewrites it.
func TestRuleTableDocs(t *testing.T) {
	testkit.GoldenSection(t, docsPath, "rules", Markdown(), *update)
}

// TestKindsDocumented fails when a kind lacks a doc line, a parameter lacks
// a doc or an optional one a default, or the language reference does not
// mention the kind.
func TestKindsDocumented(t *testing.T) {
	raw, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, k := range All() {
		b := k.Builtin()
		if b.Name != k.Name() {
			t.Errorf("%s: builtin is named %s", KeyOf(k), b.Name)
		}
		if b.Doc == "" {
			t.Errorf("%s has no doc", KeyOf(k))
		}
		for _, p := range b.Params {
			if p.Doc == "" || (!p.Required && p.Default == "") {
				t.Errorf("%s: parameter %s needs a doc and, when optional, a default", KeyOf(k), p.Name)
			}
		}
		if !strings.Contains(doc, "`"+k.Name()) && !strings.Contains(doc, k.Name()+"(") {
			t.Errorf("%s is not documented in %s", KeyOf(k), docsPath)
		}
		if _, composite := k.(Mixture); composite {
			continue // compile builds its components from their own kinds
		}
		if nk, ok := k.(NetKind); ok && k.Role() == Likelihood {
			if _, old := k.(LikelihoodKind); !old {
				checkNetKindDocs(t, nk)
				continue
			}
		}
		if k.Role() == Likelihood {
			lk, ok := k.(LikelihoodKind)
			if !ok {
				t.Errorf("%s: a likelihood needs Projection and New", KeyOf(k))
				continue
			}
			if _, ok := k.(LogDensity); !ok {
				t.Errorf("%s: a likelihood needs a LogDensity rule (gold standards, numerical schemes)", KeyOf(k))
			}
			if _, ok := b.Param(lk.Projection()); !ok {
				t.Errorf("%s: projection parameter %s is not in the signature", KeyOf(k), lk.Projection())
			}
		}
	}
}

// checkNetKindDocs checks a kind of the typed factor graph only: every
// edge documented, and every parameter of its builtin an edge.
func checkNetKindDocs(t *testing.T, k NetKind) {
	for _, e := range k.NetEdges() {
		if e.Doc == "" {
			t.Errorf("%s: edge %s has no doc", KeyOf(k), e.Name)
		}
	}
	for _, p := range k.Builtin().Params {
		if _, ok := findSpec(k.NetEdges(), p.Name); !ok {
			t.Errorf("%s: parameter %s is not an edge", KeyOf(k), p.Name)
		}
	}
}

// TestNetRuleTableDocs keeps the message rules of the typed factor graph
// in docs/families.md equal to NetMarkdown; -update rewrites it.
func TestNetRuleTableDocs(t *testing.T) {
	testkit.GoldenSection(t, "../docs/families.md", "netrules", NetMarkdown(), *update)
}
