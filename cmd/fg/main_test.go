package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/cmd/fg/internal/jsonschema"
)

// TestMain lets the test binary act as the fg command when FG_AS_MAIN=1, so
// tests can run it as a subprocess (signals, pseudo-terminals).
func TestMain(m *testing.M) {
	if os.Getenv("FG_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// fgCommand returns a command running this test binary as `fg args...`.
func fgCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "FG_AS_MAIN=1", "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	return cmd
}

// runFG runs a command in-process and returns stdout, stderr and the exit code.
func runFG(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code := e.main(args)
	return out.String(), errb.String(), code
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{}, {"frobnicate"}, {"run"}, {"run", "a.fg", "b.fg"}, {"run", "--nosuchflag", "x.fg"},
		{"run", "testdata/toy.fg", "--json", "--csv"}, {"run", "testdata/toy.fg", "--set", "eps"},
		{"check"}, {"fmt"}, {"graph"}, {"repl", "a", "b"},
	}
	for _, args := range cases {
		_, stderr, code := runFG(args...)
		if code != exitUsage || !strings.Contains(stderr, "usage") {
			t.Errorf("fg %v: exit %d, stderr %q; want exit 2 with usage", args, code, stderr)
		}
	}
}

func TestMissingFile(t *testing.T) {
	for _, cmd := range []string{"run", "check", "graph", "test", "fmt"} {
		_, stderr, code := runFG(cmd, "testdata/nosuch.fg")
		if code != exitError || !strings.Contains(stderr, "nosuch.fg") || !strings.Contains(stderr, "no such file") {
			t.Errorf("fg %s nosuch.fg: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	out, _, code := runFG("help")
	if code != exitOK || !strings.Contains(out, "  run      compile a model") {
		t.Errorf("help: %d %q", code, out)
	}
}

func TestParseInterspersed(t *testing.T) {
	var f runFlags
	fs := newRunFlagSet(&f)
	pos, err := parseInterspersed(fs, []string{"--json", "m.fg", "--set", "a=1", "--set=b=2", "--", "--x"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, " ") != "m.fg --x" || !f.json || strings.Join(f.set, ",") != "a=1,b=2" {
		t.Errorf("pos %v flags %+v", pos, f)
	}
}

func TestKeyValues(t *testing.T) {
	m, err := keyValues("set", []string{"a=1", " b = [1, 2] "})
	if err != nil || m["a"] != "1" || m["b"] != "[1, 2]" {
		t.Errorf("%v %v", m, err)
	}
	if _, err := keyValues("set", []string{"=1"}); err == nil {
		t.Error("empty name accepted")
	}
}

func loadSchema(t *testing.T) *jsonschema.Schema {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
