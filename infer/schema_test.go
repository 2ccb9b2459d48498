package infer

import (
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the option tables of docs/language.md and docs/learn.md")

// TestOptionTablesDocs keeps the option tables of the docs equal to the
// tables generated from the schema (Markdown, LearnMarkdown); -update
// rewrites them.
func TestOptionTablesDocs(t *testing.T) {
	testkit.GoldenSection(t, "../docs/language.md", "options", Markdown(), *update)
	testkit.GoldenSection(t, "../docs/learn.md", "learnoptions", LearnMarkdown(), *update)
}

// schemaFile is the one Go file that lists option keys.
const schemaFile = "infer/schema.go"

// TestOptionKeysOnlyInSchema fails when a Go file outside schema.go and
// tests lists option keys (a composite literal of two or more strings,
// all option keys) or dispatches on one (x == "tol", case "max_iter":):
// look the key up in a schema instead. A single key naming the option an
// error is reported at (optionValue(s, "family")) is not a list.
func TestOptionKeysOnlyInSchema(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range slices.Concat(InferOptions.Keys(), LearnSchema.Keys()) {
		keys[k] = true
	}
	walkGo(t, func(rel, path string) {
		if rel == schemaFile {
			return
		}
		for _, c := range nameComparisons(t, path, keys) {
			t.Errorf("%s:%d: %s: look the option up in its schema (%s)", rel, c.line, c.text, schemaFile)
		}
		for _, l := range keyLists(t, path, keys) {
			t.Errorf("%s:%d: a list of option keys: build it from a schema (%s)", rel, l, schemaFile)
		}
	})
}

// keyLists returns the lines of the composite literals of a Go file whose
// two or more elements are all string literals in keys.
func keyLists(t *testing.T, path string, keys map[string]bool) []int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CompositeLit)
		if !ok || len(c.Elts) < 2 {
			return true
		}
		for _, e := range c.Elts {
			b, ok := e.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(b.Value); err != nil || !keys[s] {
				return true
			}
		}
		out = append(out, fset.Position(c.Pos()).Line)
		return true
	})
	return out
}

// TestSchemaComplete: every descriptor has a key (once), a setter, its
// values documented, choices when it takes a name, and a default for each
// method taking it (or a DefaultDoc); every method and engine schema
// draws on InferOptions' descriptors.
func TestSchemaComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range InferOptions.Options() {
		if o.Key == "" || seen[o.Key] || o.Set == nil || o.Values == "" || (o.Kind == NameValue) != (o.Choices != nil) {
			t.Errorf("option %q: incomplete descriptor or key given twice", o.Key)
		}
		seen[o.Key] = true
		for _, m := range MethodsAccepting(o.Key) {
			if _, ok := defaultOf(o, m); !ok && o.DefaultDoc == "" {
				t.Errorf("option %s has no default for %s and no DefaultDoc", o.Key, m)
			}
		}
	}
	schemas := map[string]*LineSchema{"LoopOptions": LoopOptions, "GraphEPOptions": GraphEPOptions, "BeliefOptions": BeliefOptions, "SamplerOptions": SamplerOptions, "NoOptions": NoOptions}
	for _, m := range Methods {
		schemas[string(m)] = Registry[m].Options
	}
	for name, s := range schemas {
		for _, o := range s.Options() {
			if p, ok := InferOptions.Lookup(o.Key); !ok || p != o {
				t.Errorf("%s takes %s, a descriptor not in InferOptions", name, o.Key)
			}
		}
	}
	for _, o := range LearnSchema.Options() {
		if o.Set == nil || o.Values == "" || o.DefaultDoc == "" {
			t.Errorf("learn option %s: incomplete descriptor", o.Key)
		}
	}
}

func defaultOf(o *LineOption, m Method) (Value, bool) {
	if o.Default == nil {
		return Value{}, false
	}
	return o.Default(m)
}

// TestRunLengthsChecked checks that the mcmc run lengths are range-checked
// by their descriptors, as every other option (the memory of the kept
// draws, which depends on the model, is the engine's check), and that
// chains above the sampler's limit is a LimitError.
func TestRunLengthsChecked(t *testing.T) {
	cases := []struct {
		key   string
		v     int
		ok    bool
		limit bool
	}{
		{"samples", MinSamples, true, false},
		{"samples", MinSamples - 1, false, false},
		{"burnin", 0, true, false},
		{"burnin", MaxBurnin + 1, false, false},
		{"chains", 1, true, false},
		{"chains", 0, false, false},
		{"chains", MaxChains, true, false},
		{"chains", MaxChains + 1, false, true},
	}
	for _, c := range cases {
		o, ok := SamplerOptions.Lookup(c.key)
		if !ok || o.Check == nil {
			t.Fatalf("%s: no descriptor with a range check", c.key)
		}
		err := o.Check(Value{Int: c.v})
		var lim *LimitError
		if (err == nil) != c.ok || errors.As(err, &lim) != c.limit {
			t.Errorf("%s = %d: error %v, want ok = %v, limit = %v", c.key, c.v, err, c.ok, c.limit)
		}
	}
}
