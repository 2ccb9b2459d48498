// Package datadir locates the repository's data folder from any package:
// data/classification (the datasets that examples, tests and experiments
// read) and data/reference (peer-system outputs used as test oracles:
// GPML, GPML FITC, libDAI). See data/README.md and data/reference/README.md.
package datadir

import (
	"os"
	"path/filepath"
	"runtime"
)

// Dir returns the absolute path of the repository's data folder. It is found
// from this source file's location, so tests of any package and
// `go run ./experiments/...` reach it whatever the working directory; when
// the source path is not recorded (a -trimpath build) it walks up from the
// working directory to the folder holding go.mod. It panics if neither
// finds the folder: the data is part of the repository, so that is a broken
// checkout, not a condition to skip on.
func Dir() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if d := filepath.Join(filepath.Dir(file), "..", "..", "data"); isDir(d) {
			return filepath.Clean(d)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		panic("datadir: " + err.Error())
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && isDir(filepath.Join(d, "data")) {
			return filepath.Join(d, "data")
		}
		if filepath.Dir(d) == d {
			panic("datadir: the repository's data folder was not found from " + wd)
		}
	}
}

// Path joins elems under Dir, e.g. Path("reference", "gpml", "toy2d_se_probit").
func Path(elems ...string) string {
	return filepath.Join(append([]string{Dir()}, elems...)...)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
