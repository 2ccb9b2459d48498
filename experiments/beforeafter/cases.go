package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/internal/benchdata"
)

// benchCase is one fg command run by both binaries: an example of the
// repository or a model generated into the case's folder. Every case runs
// unchanged on ef3dc6c (the commit before the one-core redesign) and on
// main: nothing in it needs a later language feature or flag.
type benchCase struct {
	name  string
	about string // what it measures, one line
	// setup writes the generated inputs into dir (nil for an example).
	setup func(dir string) error
	// args is the fg command line (without the binary); files are
	// absolute paths, so it runs in any folder.
	args func(repo, dir string) []string
	// json: the outputs are compared as `--json` documents from one extra
	// run per side; otherwise the timed command's standard output is
	// compared as text.
	json bool
}

// cases are the benchmarks of docs/performance.md, run end to end through
// the fg binary.
func cases() []benchCase {
	return []benchCase{
		{name: "startup", about: "fg check examples/toy5.fg (5 points): the cost of starting the binary, under every other case",
			args: example("check", "examples/toy5.fg")},
		{name: "bp", about: "BP, 20 sequential passes, 300×300 Ising grid with a coupling per edge (benchdata.IsingGridSource)",
			setup: writeFile("grid300.fg", benchdata.IsingGridSource(300, true, 20)),
			args:  inDir("run", "grid300.fg"), json: true},
		{name: "ep", about: "EP on GPML's wdbc case (n = 379, SE kernel, probit): examples/gpml/se_probit.fg --only ep",
			args: example("run", "examples/gpml/se_probit.fg", "--set", "dir=../../data/reference/gpml/wdbc_se_probit",
				"--set", "log_ell=1.5", "--set", "log_sf=1", "--only", "ep"), json: true},
		{name: "ep-gp1000", about: "EP, 5 sequential sweeps, probit GP n = 1000 on 2-D inputs (benchdata.ProbitGPData)",
			setup: writeGP(1000, 0, "infer ep { max_iter = 5, tol = 1e-300 }"),
			args:  inDir("run", "model.fg"), json: true},
		{name: "fitc", about: "FITC EP, sequential and parallel, GPML's pima case (n = 200, m = 20): examples/gpml/fitc_probit.fg",
			args: example("run", "examples/gpml/fitc_probit.fg", "--set", "dir=../../data/reference/gpml_fitc/pima_ripley_fitc20",
				"--set", "log_ell=1", "--set", "log_sf=0.5", "--set", "nlz_gpml=103.27672157785325"), json: true},
		{name: "fitc-10k", about: "FITC EP, 10 sequential sweeps, probit GP n = 10⁴, m = 100 (benchdata.ProbitGPData)",
			setup: writeGP(10000, 100, "infer ep { max_iter = 10, tol = 1e-300 }"),
			args:  inDir("run", "model.fg"), json: true},
		{name: "chain", about: "random walk observed at every step, T = 10⁶: one forward–backward pass (rw.fg --set T=1000000)",
			setup: writeFile("rw.fg", randomWalk(1000)),
			args:  inDir("run", "rw.fg", "--set", "T=1000000"), json: true},
		{name: "compile-chain", about: "fg check on the random walk with T = 10⁶ written in the file",
			setup: writeFile("rw.fg", randomWalk(1_000_000)),
			args:  inDir("check", "rw.fg")},
		{name: "compile-grid", about: "fg check on the 1000×1000 Ising grid, one coupling (10⁶ variables, 2 998 000 factors)",
			setup: writeFile("grid1000.fg", benchdata.IsingGridSource(1000, false, 20)),
			args:  inDir("check", "grid1000.fg")},
		{name: "learn", about: "learning GPML's pima case (n = 200) by evidence from (1, 0.5): examples/gpml/learn_se_probit.fg",
			args: example("run", "examples/gpml/learn_se_probit.fg", "--set", "dir=../../data/reference/gpml/pima_ripley_se_probit",
				"--set", "log_ell=1", "--set", "log_sf=0.5"), json: true},
	}
}

// randomWalk is benchdata.RandomWalkSource with T steps written in the
// file.
func randomWalk(T int) []byte {
	return []byte(strings.Replace(benchdata.RandomWalkSource, "param T = 1000", fmt.Sprintf("param T = %d", T), 1))
}

// writeGP writes a probit GP classification model on benchdata's 2-D
// inputs of size n (SE kernel, lengthscale 0.7, variance 2) with the given
// infer line; m > 0 makes it FITC on every (n/m)-th input.
func writeGP(n, m int, infer string) func(dir string) error {
	return func(dir string) error {
		X, y := benchdata.ProbitGPData(n, uint64(n))
		var train, xu strings.Builder
		train.WriteString("x1,x2,label\n")
		xu.WriteString("x1,x2\n")
		for i := range n {
			row := strconv.FormatFloat(X.At(i, 0), 'g', -1, 64) + "," + strconv.FormatFloat(X.At(i, 1), 'g', -1, 64)
			fmt.Fprintf(&train, "%s,%g\n", row, y[i])
			if m > 0 && i%(n/m) == 0 {
				xu.WriteString(row + "\n")
			}
		}
		prior, z := "gp(se(0.7, 2), X)", ""
		if m > 0 {
			prior, z = "gp(se(0.7, 2), X, inducing = Z)", "data Z = csv(\"xu.csv\")\n"
			if err := os.WriteFile(filepath.Join(dir, "xu.csv"), []byte(xu.String()), 0o644); err != nil {
				return err
			}
		}
		model := fmt.Sprintf(`model gp%d
data X = csv("train.csv", exclude = ["label"])
data y: spin[len(X)] = csv("train.csv", column = "label")
%slatent f: real[len(X)] ~ %s
for i in 0..len(X) {
  y[i] ~ probit(f[i])
}
%s
`, n, z, prior, infer)
		if err := os.WriteFile(filepath.Join(dir, "train.csv"), []byte(train.String()), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "model.fg"), []byte(model), 0o644)
	}
}

func writeFile(name string, b []byte) func(dir string) error {
	return func(dir string) error { return os.WriteFile(filepath.Join(dir, name), b, 0o644) }
}

// inDir is `fg CMD DIR/FILE ARGS...` for a file the case generated.
func inDir(cmd, file string, args ...string) func(repo, dir string) []string {
	return func(_, dir string) []string {
		return append([]string{cmd, filepath.Join(dir, file)}, args...)
	}
}

// example is `fg CMD REPO/PATH ARGS...` on an example of the repository
// (the working tree's copy for both binaries).
func example(cmd, path string, args ...string) func(repo, dir string) []string {
	return func(repo, _ string) []string {
		return append([]string{cmd, filepath.Join(repo, path)}, args...)
	}
}

// selectCases returns the cases named in list (comma-separated; "" or
// "all": every case), in the order of cases().
func selectCases(list string) ([]benchCase, error) {
	all := cases()
	if list == "" || list == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []benchCase
	for _, c := range all {
		if want[c.name] {
			out = append(out, c)
			delete(want, c.name)
		}
	}
	if len(want) > 0 {
		var names []string
		for _, c := range all {
			names = append(names, c.name)
		}
		for n := range want {
			return nil, fmt.Errorf("no case %q (cases: %s)", n, strings.Join(names, ", "))
		}
	}
	return out, nil
}
