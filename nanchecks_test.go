package fg_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nanBlindRx matches a tolerance check `if … math.Abs(d) > tol … {` whose
// body reports a failure: it passes when d is NaN, since every comparison
// with NaN is false. Write `!(math.Abs(d) <= tol)` instead.
var nanBlindRx = regexp.MustCompile(`^\s*(if|case) .*math\.Abs\([^()]*\) > `)

// TestNoNaNBlindToleranceChecks keeps the repository's tests able to fail
// on NaN (a comparison like d > tol is false for NaN; 228 such checks were
// rewritten).
func TestNoNaNBlindToleranceChecks(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if nanBlindRx.MatchString(line) {
				t.Errorf("%s:%d: a tolerance check that passes on NaN; write !(math.Abs(d) <= tol):\n%s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
