package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// exampleFiles lists examples/**/*.fg.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join("..", "..", "examples"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".fg") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 6 {
		t.Fatalf("examples: %v (%d files)", err, len(files))
	}
	return files
}

// TestExamplesCheckFmtGraph: every example passes fg check, is already in
// fg fmt's canonical form (fmt -l lists nothing), and fg graph draws it as
// DOT — and as PNG through graphviz when `dot` is installed.
func TestExamplesCheckFmtGraph(t *testing.T) {
	_, dotErr := exec.LookPath("dot")
	if dotErr != nil {
		t.Log("graphviz's dot is not installed: the DOT is checked, PNG rendering is not")
	}
	for _, f := range exampleFiles(t) {
		if _, stderr, code := runFG("check", f); code != exitOK {
			t.Errorf("fg check %s: exit %d\n%s", f, code, stderr)
		}
		src, _ := os.ReadFile(f)
		libdai := !strings.Contains(string(src), "model ") && !strings.Contains(string(src), "latent")
		if out, _, code := runFG("fmt", "-l", f); code != exitOK || (!libdai && strings.TrimSpace(out) != "") {
			t.Errorf("fg fmt -l %s: exit %d, lists %q", f, code, out)
		}
		out, stderr, code := runFG("graph", f)
		if code != exitOK || !strings.HasPrefix(strings.TrimSpace(out), "graph") {
			t.Errorf("fg graph %s: exit %d %s", f, code, stderr)
		}
		if dotErr != nil {
			continue
		}
		p := filepath.Join(t.TempDir(), "g.png")
		if _, stderr, code := runFG("graph", f, "--png", p); code != exitOK {
			t.Errorf("fg graph --png %s: exit %d %s", f, code, stderr)
			continue
		}
		r, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(r); err != nil {
			t.Errorf("%s: graph PNG: %v", f, err)
		}
		r.Close()
	}
}

// TestGraphGridPNG: the 4×4 Ising grid of examples/bp_divergences.fg is
// drawn by neato as a mesh (dot drew a 3091×179 strip), with
// the factors labelled. Skipped when graphviz's dot is not installed.
func TestGraphGridPNG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("graphviz's dot is not installed")
	}
	f := filepath.Join("..", "..", "examples", "bp_divergences.fg")
	out, _, code := runFG("graph", f)
	if code != exitOK || !strings.Contains(out, "layout=neato") || !strings.Contains(out, `label="ising"`) {
		t.Fatalf("fg graph: exit %d, DOT without neato or factor labels:\n%.300s", code, out)
	}
	p := filepath.Join(t.TempDir(), "grid.png")
	if _, stderr, code := runFG("graph", f, "--png", p); code != exitOK {
		t.Fatalf("fg graph --png: exit %d %s", code, stderr)
	}
	r, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cfg, err := png.DecodeConfig(r)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := float64(cfg.Width) / float64(cfg.Height); ratio > 2 || ratio < 0.5 {
		t.Errorf("grid PNG is %d×%d, a strip rather than a mesh", cfg.Width, cfg.Height)
	}
}
