//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fg-infer/fg/internal/benchdata"
)

// command is one process to measure: argv, working folder and the file its
// standard output goes to (the result the agreement is computed from).
type command struct {
	args   []string
	dir    string
	stdout string
	env    []string // added to the environment
}

// measure is what one run of a command cost, read from the operating
// system: wall time, CPU time of the process and the children it waited
// for (user + system, from wait4's rusage) and its peak resident set size
// (ru_maxrss), with the 1-minute load average just before it started.
type measure struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
	load      float64
	err       error
}

// run starts c, waits for it (killing it after timeout) and measures it.
// The command runs under GNU time, which reports its peak RSS: the rusage
// of a child of this process would count this process's own resident set
// at the fork (Linux keeps the high-water mark across exec), while GNU
// time's is a megabyte or two.
func run(c command, timeout time.Duration) measure {
	m := measure{load: benchdata.LoadAvg()}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rss, err := os.CreateTemp("", "fg-peers-rss")
	if err != nil {
		m.err = err
		return m
	}
	rss.Close()
	defer os.Remove(rss.Name())
	args := append([]string{"-f", "%M", "-o", rss.Name()}, c.args...)
	cmd := exec.CommandContext(ctx, gnuTime, args...)
	// its own process group, killed whole at the timeout (GNU time and the
	// command under it)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if c.stdout != "" {
		f, err := os.Create(c.stdout)
		if err != nil {
			m.err = err
			return m
		}
		defer f.Close()
		cmd.Stdout = f
	}
	start := time.Now()
	err = cmd.Run()
	m.wall = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		m.cpu = ps.UserTime() + ps.SystemTime() // GNU time's and its child's
	}
	if b, rerr := os.ReadFile(rss.Name()); rerr == nil {
		// the last line: GNU time writes "Command exited with non-zero status" before it
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if kb, perr := strconv.ParseInt(strings.TrimSpace(lines[len(lines)-1]), 10, 64); perr == nil {
			m.maxRSS = kb << 10
		}
	}
	switch {
	case ctx.Err() != nil:
		m.err = fmt.Errorf("killed after %v", timeout)
	case err != nil:
		msg := lastLines(stderr.String(), 3)
		if msg == "" && c.stdout != "" {
			msg = resultMessage(c.stdout)
		}
		m.err = fmt.Errorf("%s: %v: %s", filepath.Base(c.args[0]), err, msg)
	}
	return m
}

// resultMessage is the message of the first failed result of `fg run
// --json` output (fg reports a refused method there, not on stderr).
func resultMessage(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var out struct {
		Results []struct{ Status, Message string }
	}
	if json.NewDecoder(f).Decode(&out) != nil {
		return ""
	}
	for _, r := range out.Results {
		if r.Message != "" {
			return r.Status + ": " + r.Message
		}
	}
	return ""
}

// gnuTime is GNU time, which build.sh installs (Debian's package time).
const gnuTime = "/usr/bin/time"

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// need fails unless path exists.
func need(path, what string) error {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s not found at %s", what, path)
		}
		return err
	}
	return nil
}
