package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/fg-infer/fg/internal/testkit"
)

// TestRunInterrupt sends SIGINT and SIGTERM to runs of every long method
// (testdata/slow/METHOD.fg: ep, t-EP (at 1500 and 2500 sites), bp, exact, mcmc and learn, each running for
// many seconds): fg must stop within a second of the signal — measured as
// the CPU time it uses after the signal, at most testkit.StopCPU with
// GOMAXPROCS = testkit.StopProcs, so that load on the machine cannot fail
// the test and a method that ignores the signal cannot pass it — print the
// partial result as canceled, say it was interrupted and exit non-zero
// without a Go runtime error. With -short each method gets one signal
// (SIGINT and SIGTERM alternating), otherwise both.
func TestRunInterrupt(t *testing.T) {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	for k, method := range []string{"ep", "tep", "bp", "exact", "mcmc", "learn", "tep2500"} {
		for j, sig := range sigs {
			if testing.Short() && j != k%2 {
				continue
			}
			t.Run(method+"/"+sig.String(), func(t *testing.T) {
				interrupt(t, "testdata/slow/"+method+".fg", sig)
			})
		}
	}
}

// startDelay is how long a run gets to compile and start its method before
// the signal (the slow models compile in a few tens of milliseconds), and
// startCPU the CPU time it must have used by then: on a loaded machine
// 500 ms of wall time can pass before the process has run at all (it then
// dies of the signal's default action before fg installs its handler).
const (
	startDelay = 500 * time.Millisecond
	startCPU   = 150 * time.Millisecond
)

// interrupt runs fg on path, sends sig after startDelay and checks that fg
// stops within a second (of CPU time on StopProcs threads) with a
// canceled result.
func interrupt(t *testing.T, path string, sig os.Signal) {
	cmd := fgCommand(t, "run", path)
	cmd.Env = append(cmd.Env, fmt.Sprintf("GOMAXPROCS=%d", testkit.StopProcs))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitStarted(t, cmd.Process.Pid, done, &out, &errb)
	cpu0, haveCPU := testkit.PidCPU(cmd.Process.Pid)
	sent := time.Now()
	cmd.Process.Signal(sig)
	select {
	case err := <-done:
		took := time.Since(sent)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() <= 0 || ee.ExitCode() == 2 {
			t.Errorf("exit: %v, want a non-zero status of fg's own", err)
		}
		if !haveCPU {
			t.Logf("stopped %v after %v (no /proc: CPU time not checked)", sig, took)
			break
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - cpu0
		t.Logf("stopped %v after %v, %v of CPU time", sig, took, cpu)
		if cpu > testkit.StopCPU {
			t.Errorf("fg used %v of CPU time to stop after %v (%v wall), want ≤ %v", cpu, sig, took, testkit.StopCPU)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("fg did not stop within 20 s of %v", sig)
	}
	if !strings.Contains(out.String(), "canceled") || !strings.Contains(errb.String(), "interrupted") || strings.Contains(errb.String(), "goroutine") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

// waitStarted waits until the process has run for startDelay of wall time
// and startCPU of CPU time (startDelay alone without /proc), or fails the
// test when it ends first or has not started within 20 s.
func waitStarted(t *testing.T, pid int, done chan error, out, errb *bytes.Buffer) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	wall := time.After(startDelay)
	for waited := false; ; {
		select {
		case err := <-done:
			t.Fatalf("fg ended before the signal (%v):\n%s%s", err, out.String(), errb.String())
		case <-deadline:
			t.Fatalf("fg used less than %v of CPU time in 20 s", startCPU)
		case <-wall:
			waited = true
		case <-time.After(10 * time.Millisecond):
		}
		if !waited {
			continue
		}
		if cpu, ok := testkit.PidCPU(pid); !ok || cpu >= startCPU {
			return
		}
	}
}

// TestRunProgressOnTerminal: on a terminal fg run shows the sweep progress
// line, and Ctrl-C typed there cancels the run.
func TestRunProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	c := runOnTerminal(t, "run", "testdata/slow.fg")
	c.expect("ep  sweep ")
	c.expect("R = ")
	c.pty.Write([]byte{3})
	c.expect("canceled")
	c.expect("interrupted")
}

// TestGoldProgressOnTerminal: on a terminal, exact reports its evaluations
// and error estimate (its line no longer freezes), MCMC its draws out of
// the total with the time left, and the line is erased before the table.
func TestGoldProgressOnTerminal(t *testing.T) {
	c := runOnTerminal(t, "run", "testdata/toy.fg", "--method", "exact",
		"--method", "mcmc as long { samples = 40000, seed = 2 }", "--only", "mcmc", "--only", "exact", "--only", "long")
	c.expect("mcmc  draw ")
	c.expect("/20000")
	c.expect("exact  evaluation ")
	c.expect("error = ")
	c.expect("long  draw ")
	c.expect("s left")
	c.expect("\r\033[K")
	c.expect("variable")
}

// runOnTerminal runs `fg args...` on a pseudo-terminal (skipping the test
// when there is none); the process is killed when the test ends.
func runOnTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := fgCommand(t, args...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	c := &terminal{t: t, pty: f}
	go io.Copy(c, f)
	t.Cleanup(func() { f.Close(); cmd.Process.Kill(); cmd.Wait() })
	return c
}
