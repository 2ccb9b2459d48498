// Package shared locates the ../shared folder (papers, data, peer references)
// that sits beside the repository checkout, for tests and experiments.
package shared

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir returns the absolute path of the shared folder: $FG_SHARED if set,
// otherwise the folder named "shared" beside the directory holding go.mod,
// found by walking up from the working directory.
func Dir() (string, error) {
	if d := os.Getenv("FG_SHARED"); d != "" {
		return filepath.Abs(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared")
			if st, err := os.Stat(s); err == nil && st.IsDir() {
				return s, nil
			}
			return "", errors.New("shared folder not found beside " + d + " (set FG_SHARED)")
		}
		if filepath.Dir(d) == d {
			return "", errors.New("go.mod not found above " + wd)
		}
	}
}

// Path joins elems under Dir. It panics if the shared folder cannot be found;
// tests should call Dir first when they want to skip instead.
func Path(elems ...string) string {
	d, err := Dir()
	if err != nil {
		panic(err)
	}
	return filepath.Join(append([]string{d}, elems...)...)
}
