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
// DOT — and as PNG through graphviz when `dot` is installed (issue 2).
func TestExamplesCheckFmtGraph(t *testing.T) {
	_, dotErr := exec.LookPath("dot")
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
