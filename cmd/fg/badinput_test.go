//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The bad-input corpus (testdata/badinput/README.md): every case runs fg in
// a subprocess under a 2 GiB data-memory limit and a limit of 20 s of CPU
// time (ulimit -t: load-independent, so a case that needs 12 s of CPU on an
// idle machine does not time out when other test binaries share the cores;
// a wall-clock guard of badInputWall catches a case that blocks), and must
// exit with the status its `want` file names, print the text it lists, and
// never show a Go runtime fatal error, a panic or a goroutine stack.

const (
	badInputDir        = "testdata/badinput"
	badInputCPUSeconds = 20
	badInputWall       = 120 * time.Second
	// badInputMemKiB is the RLIMIT_DATA of a case (ulimit -d, in KiB).
	// RLIMIT_AS (ulimit -v) would count the ~1.2 GB of address space the Go
	// runtime reserves at start-up; RLIMIT_DATA counts what is mapped.
	badInputMemKiB = 2 << 20
)

// crashRx matches what only a crash prints.
var crashRx = regexp.MustCompile(`(?m)^(fatal error:|panic:|goroutine \d+ \[|runtime: )|internal (error|compiler error|parser error)`)

// badCase is one case directory.
type badCase struct {
	args  []string
	stdin []byte // the case's stdin file, empty without one
	name  string // the args, shortened for messages
	exit  int
	want  []*regexp.Regexp
}

func readBadCase(dir string) (*badCase, error) {
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		return nil, err
	}
	want, err := os.ReadFile(filepath.Join(dir, "want"))
	if err != nil {
		return nil, err
	}
	line := strings.TrimRight(string(args), "\n")
	if line == "" || strings.Contains(line, "\n") {
		return nil, errors.New("args: want one non-empty line")
	}
	c := &badCase{args: strings.Split(line, " "), name: line}
	if c.stdin, err = os.ReadFile(filepath.Join(dir, "stdin")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(c.name) > 80 {
		c.name = c.name[:80] + "…"
	}
	lines := strings.Split(string(want), "\n")
	code, ok := strings.CutPrefix(lines[0], "exit ")
	if c.exit, err = strconv.Atoi(code); !ok || err != nil {
		return nil, errors.New("want: the first line must be `exit N`")
	}
	for _, l := range lines[1:] {
		if l == "" {
			continue
		}
		rx, err := regexp.Compile(l)
		if err != nil {
			return nil, err
		}
		c.want = append(c.want, rx)
	}
	return c, nil
}

func TestBadInputCorpus(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no /bin/sh to set the memory limit")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join(badInputDir, "*", "args"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in %s: %v", badInputDir, err)
	}
	for _, a := range dirs {
		dir := filepath.Dir(a)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			c, err := readBadCase(dir)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			runBadCase(t, exe, dir, c)
		})
	}
}

// runBadCase runs one case with the fg command being this test binary
// (FG_AS_MAIN=1, see TestMain).
func runBadCase(t *testing.T, exe, dir string, c *badCase) {
	ctx, cancel := context.WithTimeout(context.Background(), badInputWall)
	defer cancel()
	script := "ulimit -d " + strconv.Itoa(badInputMemKiB) + " && ulimit -t " + strconv.Itoa(badInputCPUSeconds) + ` && exec "$0" "$@"`
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, exe}, c.args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FG_AS_MAIN=1", "FG_DEBUG=", "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	cmd.Stdin = bytes.NewReader(c.stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	text := out.String()
	if ctx.Err() != nil {
		t.Fatalf("fg %s: no answer within %v of wall time\n%s", c.name, badInputWall, text)
	}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL) {
			t.Fatalf("fg %s: used more than %d s of CPU time (%v wall)\n%s", c.name, badInputCPUSeconds, time.Since(start), text)
		}
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if m := crashRx.FindString(text); m != "" {
		t.Errorf("fg %s: output shows a crash (%q):\n%s", c.name, m, text)
	}
	if code != c.exit {
		t.Errorf("fg %s: exit %d, want %d (%v)\n%s", c.name, code, c.exit, time.Since(start).Round(time.Millisecond), text)
	}
	for _, rx := range c.want {
		if !rx.MatchString(text) {
			t.Errorf("fg %s: output does not match %q:\n%s", c.name, rx, text)
		}
	}
}

// TestBadInputCrashPattern: the crash pattern catches Go's fatal errors,
// panics and stacks, and fg's internal errors, but not ordinary messages.
func TestBadInputCrashPattern(t *testing.T) {
	crashes := []string{
		"fatal error: out of memory\n", "runtime: goroutine stack exceeds 1000000000-byte limit\n",
		"panic: runtime error: index out of range [3] with length 3\n", "\ngoroutine 1 [running]:\n",
		"fg: internal error: boom\n", "m.fg:1:1: error: internal compiler error: x\n",
	}
	for _, s := range crashes {
		if !crashRx.MatchString(s) {
			t.Errorf("%q is not recognised as a crash", s)
		}
	}
	for _, s := range []string{"m.fg:2:3: error: undefined: `runtime`\n", "status   converged\n"} {
		if crashRx.MatchString(s) {
			t.Errorf("%q is taken for a crash", s)
		}
	}
}
