package compile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(want, buf.Bytes()) {
				t.Errorf("dump differs from %s:\n%s", golden, firstDiff(string(want), buf.String()))
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtNum(float64(i))) }

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
