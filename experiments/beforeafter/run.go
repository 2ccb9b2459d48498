package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/fg-infer/fg/internal/benchdata"
)

// sample is what one run of fg cost, read from the operating system.
type sample struct {
	cpu  time.Duration // user + system time of the fg process
	wall time.Duration
	peak int64   // peak resident set size, bytes (ru_maxrss)
	load float64 // 1-minute load average when the run started
}

// run runs bin with args in dir, its standard output written to stdout
// (discarded when empty), and measures it. A run that exits non-zero or
// outlives timeout is an error carrying the end of its standard error.
func run(ctx context.Context, bin string, args []string, dir, stdout string, timeout time.Duration) (sample, error) {
	s := sample{load: benchdata.LoadAvg()}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if stdout != "" {
		f, err := os.Create(stdout)
		if err != nil {
			return s, err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	var stderr tail
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	s.wall = time.Since(start)
	if cmd.ProcessState != nil {
		s.cpu, s.peak = usage(cmd.ProcessState)
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return s, fmt.Errorf("killed after %v", timeout)
	case err != nil:
		return s, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return s, nil
}

// tail keeps the last bytes written to it: the end of a child's standard
// error, bounded whatever the child writes.
type tail struct{ b []byte }

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// String is the kept text on one line.
func (t *tail) String() string {
	return strings.Join(strings.Fields(string(t.b)), " ")
}
