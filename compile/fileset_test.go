package compile

import (
	"testing"
	"testing/fstest"
)

// TestPositionsAcrossImports: the positions of a model's graph and specs
// resolve through Model.Fset to the file that wrote them, the root file or
// an import; a recompilation keeps them in a set of its own that holds
// the parsed files (and the --set values) only, so that recompiling again
// and again does not grow it.
func TestPositionsAcrossImports(t *testing.T) {
	fsys := fstest.MapFS{
		"m/main.fg":      {Data: []byte("model m\nimport \"lib/prior.fg\"\nparam s = 1\nfor i in 0..3 {\n  y[i] ~ normal(w, s)\n}\ninfer ep\n")},
		"m/lib/prior.fg": {Data: []byte("// the prior\ndata y = [0.5, 1, 1.5]\n\nlatent w: real ~ normal(0, 10)\n")},
	}
	m, err := CompileFile("m/main.fg", Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	check := func(m *Model) {
		t.Helper()
		if got := m.Fset.Position(m.Graph.Latents[0].Pos).String(); got != "m/lib/prior.fg:4:1" {
			t.Errorf("latent w at %s, want m/lib/prior.fg:4:1", got)
		}
		if got := m.Fset.Position(m.Infers[0].Pos).String(); got != "m/main.fg:7:1" {
			t.Errorf("infer ep at %s, want m/main.fg:7:1", got)
		}
		if got := m.Fset.Position(m.Blocks()[0].Sites[2].Pos).String(); got != "m/main.fg:5:3" {
			t.Errorf("site y[2] at %s, want m/main.fg:5:3", got)
		}
	}
	check(m)
	files := len(m.Fset.Files())
	for k := range 5 {
		next, err := m.Recompile(map[string]string{"s": "2"})
		if err != nil {
			t.Fatal(err)
		}
		if next.Fset == m.Fset {
			t.Fatal("a recompilation shares its file set with the model")
		}
		check(next)
		if n := len(next.Fset.Files()); n != files+1 { // the --set value is a file of its own
			t.Errorf("recompilation %d: %d files in the set, want %d", k, n, files+1)
		}
		m = next
	}
}
