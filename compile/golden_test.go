package compile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// exampleFiles are every .fg under examples/.
func exampleFiles(t *testing.T) []string {
	var files []string
	filepath.WalkDir("../examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".fg") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	return files
}

// TestExamplesGolden compiles every example and compares its Dump with
// testdata/golden/<path>.golden (go test ./compile -run Golden -update).
func TestExamplesGolden(t *testing.T) {
	for _, p := range exampleFiles(t) {
		name := strings.ReplaceAll(strings.TrimPrefix(p, "../examples/"), "/", "_")
		t.Run(name, func(t *testing.T) {
			m, err := CompileFile(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Dump(&buf, m); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".fg")+".golden")
			testkit.Golden(t, golden, buf.Bytes(), *update)
		})
	}
}

func exampleFilesF() []string {
	var files []string
	filepath.WalkDir("../examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".fg") {
			files = append(files, p)
		}
		return nil
	})
	return files
}

func globF(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}
