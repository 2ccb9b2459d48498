package main

import (
	"flag"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/openblas"
	"github.com/fg-infer/fg/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestHelpRunGolden: `fg help run` and `fg run -h` print the same help —
// usage, description and every flag of run's FlagSet — on stdout, exit 0.
func TestHelpRunGolden(t *testing.T) {
	golden := filepath.Join("testdata", "help_run.golden")
	out, stderr, code := runFG("help", "run")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	testkit.Golden(t, golden, []byte(out), *update)
	for _, args := range [][]string{{"run", "-h"}, {"run", "--help"}, {"run", "model.fg", "-help"}} {
		if o, e, c := runFG(args...); o != out || e != "" || c != exitOK {
			t.Errorf("fg %v: exit %d, stderr %q, stdout differs: %v", args, c, e, o != out)
		}
	}
	var f runFlags
	newRunFlagSet(&f).VisitAll(func(fl *flag.Flag) {
		if !strings.Contains(out, "--"+fl.Name+" ") || fl.Usage == "" {
			t.Errorf("flag --%s not described", fl.Name)
		}
	})
}

// TestHelpEveryCommand: every command has help on stdout with exit 0, by
// `fg help CMD` and `fg CMD -h` alike, and `fg help` lists them all.
func TestHelpEveryCommand(t *testing.T) {
	general, _, code := runFG("help")
	if code != exitOK {
		t.Fatalf("fg help: exit %d", code)
	}
	for _, c := range commands {
		if !strings.Contains(general, "  "+c.name+" ") {
			t.Errorf("fg help does not list %s", c.name)
		}
		out, stderr, code := runFG("help", c.name)
		if code != exitOK || stderr != "" || !strings.HasPrefix(out, "usage: "+c.usage+"\n\n"+c.doc) {
			t.Errorf("fg help %s: exit %d, stderr %q, out %q", c.name, code, stderr, out)
		}
		if o, _, code := runFG(c.name, "-h"); code != exitOK || o != out {
			t.Errorf("fg %s -h: exit %d, %q", c.name, code, o)
		}
	}
	if out, _, _ := runFG("help", "graph"); !strings.Contains(out, "--png OUT.png     render the graph") {
		t.Errorf("fg help graph: %q", out)
	}
	if out, _, _ := runFG("help", "fmt"); !strings.Contains(out, "-w  rewrite files in place") {
		t.Errorf("fg help fmt: %q", out)
	}
}

// TestDidYouMean: a misspelt command or flag is a usage error naming the
// nearest one.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, `fg: unknown command "rnu"; did you mean "run"?`},
		{[]string{"help", "tset"}, `fg: unknown command "tset"; did you mean "test"?`},
		{[]string{"run", "testdata/toy.fg", "--jsn"}, "fg: unknown flag --jsn; did you mean --json?"},
		{[]string{"run", "--metod", "bp", "testdata/toy.fg"}, "fg: unknown flag --metod; did you mean --method?"},
		{[]string{"graph", "--pgn", "x.png", "testdata/toy.fg"}, "fg: unknown flag --pgn; did you mean --png?"},
		{[]string{"xyzzy"}, "fg: unknown command \"xyzzy\"\n"},
	} {
		_, stderr, code := runFG(c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("fg %v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestVersion: fg version prints the module version and the VCS revision
// of the build info (the test binary has none, so it is substituted).
func TestVersion(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { readBuildInfo = f }(readBuildInfo)
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/fg-infer/fg", Version: "v0.3.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "f6bc8c3c2985dd5949ef65b132eccf2b8fe12b2b"},
				{Key: "vcs.time", Value: "2026-11-25T03:52:59Z"}, {Key: "vcs.modified", Value: "true"},
				{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}}, true
	}
	out, _, code := runFG("version")
	want := "fg v0.3.0\nmodule    github.com/fg-infer/fg\nrevision  f6bc8c3c2985dd5949ef65b132eccf2b8fe12b2b (modified)\n" +
		"committed 2026-11-25T03:52:59Z\ngo        go1.26.8 linux/amd64\nblas      " + openblas.Backend + "\n"
	if code != exitOK || out != want {
		t.Errorf("exit %d:\n%s\nwant:\n%s", code, out, want)
	}
	if o, _, _ := runFG("--version"); o != want {
		t.Errorf("--version: %q", o)
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{GoVersion: "go1.26.8"}, true }
	if out, _, _ := runFG("version"); !strings.Contains(out, "fg (devel)\nrevision  unknown (built without VCS information") {
		t.Errorf("no VCS info: %q", out)
	}
	if _, _, code := runFG("version", "extra"); code != exitUsage {
		t.Errorf("fg version extra: exit %d", code)
	}
}
