package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fg-infer/fg/expect"
	"github.com/fg-infer/fg/internal/session"
)

const testUsage = "fg test [FILE|DIR]..."

// test runs the expect statements of every model given (directories are
// searched recursively for *.fg files, skipping testdata and hidden
// folders); exit 1 if any expectation fails or a model does not compile.
func (e *env) test(args []string) int {
	fset := flag.NewFlagSet("test", flag.ContinueOnError)
	pos, err := parseInterspersed(fset, args)
	if err != nil {
		return e.usageError(testUsage, "%v", err)
	}
	if len(pos) == 0 {
		pos = []string{"."}
	}
	files, err := modelFiles(pos)
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %v\n", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	failed, tested := 0, 0
	for _, f := range files {
		ok, ran := e.testFile(ctx, f)
		if !ok {
			failed++
		}
		if ran {
			tested++
		}
	}
	fmt.Fprintf(e.stdout, "%d model(s) tested, %d failed\n", tested, failed)
	if failed > 0 {
		return exitError
	}
	return exitOK
}

// modelFiles expands directories into their .fg files (sorted).
func modelFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", a, notExistMsg(err))
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != a && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".fg") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// testFile runs one model and prints its expectations; it reports whether
// the file passed and whether it had anything to test.
func (e *env) testFile(ctx context.Context, path string) (ok, ran bool) {
	m, err := session.Load(path)
	if err != nil {
		e.printErrors(err)
		fmt.Fprintf(e.stdout, "FAIL %s (does not compile)\n", path)
		return false, true
	}
	if len(m.Compiled().Expects) == 0 {
		fmt.Fprintf(e.stdout, "?    %s (no expect statements)\n", path)
		return true, false
	}
	res, err := m.Run(ctx)
	if err != nil && res == nil {
		e.printErrors(err)
		fmt.Fprintf(e.stdout, "FAIL %s (run failed)\n", path)
		return false, true
	}
	es := res.Expects()
	for _, x := range es {
		fmt.Fprintf(e.stdout, "    %s\n", x)
	}
	if err != nil || expect.Failed(es) {
		if err != nil {
			fmt.Fprintf(e.stdout, "    run: %v\n", err)
		}
		fmt.Fprintf(e.stdout, "FAIL %s (%d expectation(s), %d failed)\n", path, len(es), countFailed(es))
		return false, true
	}
	fmt.Fprintf(e.stdout, "ok   %s (%d expectation(s))\n", path, len(es))
	return true, true
}

func countFailed(es []expect.Result) int {
	n := 0
	for _, x := range es {
		if !x.Pass && !x.Skipped {
			n++
		}
	}
	return n
}
