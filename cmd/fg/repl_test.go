package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal drives `fg repl` through a pseudo-terminal like a person typing.
type terminal struct {
	t   *testing.T
	pty *os.File
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *terminal) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

// expect waits until the output since the last expect contains s.
func (c *terminal) expect(s string) string {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		out := c.buf.String()
		if i := strings.Index(out, s); i >= 0 {
			c.buf.Reset()
			c.buf.WriteString(out[i+len(s):])
			c.mu.Unlock()
			return out[:i+len(s)]
		}
		c.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t.Fatalf("timed out waiting for %q; output so far:\n%s", s, c.buf.String())
	return ""
}

// typeLine types a line and Enter.
func (c *terminal) typeLine(s string) {
	c.t.Helper()
	if _, err := c.pty.Write([]byte(s + "\r")); err != nil {
		c.t.Fatal(err)
	}
}

func startREPL(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := fgCommand(t, append([]string{"repl"}, args...)...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	c := &terminal{t: t, pty: f}
	go io.Copy(c, f)
	t.Cleanup(func() {
		f.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

func TestREPLSession(t *testing.T) {
	c := startREPL(t)
	c.expect("fg> ")
	c.typeLine(":help")
	c.expect(":run [LABEL]")
	c.expect("fg> ")
	// A statement split over lines continues with "... " until complete.
	c.typeLine("model typed")
	c.expect("fg> ")
	c.typeLine("data X: real[5, 2] = [[-2, 1], [-1, 2],")
	c.expect("... ")
	c.typeLine("  [1, -1], [2, -2], [3, 1]]")
	c.expect("fg> ")
	for _, l := range []string{
		"data y: spin[5] = [-1, -1, 1, 1, -1]",
		"param eps = 0.2",
		"latent w: real[2] ~ normal(0, 1)",
		"for i in 0..5 {",
	} {
		c.typeLine(l)
	}
	c.expect("... ")
	c.typeLine("  y[i] ~ step(dot(X[i], w), eps)")
	c.expect("... ")
	c.typeLine("}")
	c.expect("fg> ")
	c.typeLine("infer ep")
	c.expect("fg> ")
	c.typeLine(":show eps")
	c.expect("param eps = 0.2")
	c.typeLine(":set eps=0.1")
	c.expect("eps = 0.1")
	// An override error names the REPL command the user typed, not fg
	// run's flag.
	c.typeLine(":set nope=1")
	c.expect(":set nope: the model has no param `nope`")
	c.typeLine(":run")
	out := c.expect("w[1]")
	if !strings.Contains(out, "w[0]") || !strings.Contains(out, "±") {
		t.Errorf(":run output lacks the marginals:\n%s", out)
	}
	c.typeLine(":show w")
	c.expect("w[1]")
	// An expression is evaluated against the results of the last run.
	c.typeLine("sd(w[0]) > 0")
	c.expect("ep: true")
	// An error is reported and does not change the session.
	c.typeLine("latent v: real ~ normall(0, 1)")
	c.expect("normal")
	c.typeLine(":methods")
	c.expect("ep")
	c.typeLine(":quit")
}

func TestREPLCompletionAndCtrlD(t *testing.T) {
	c := startREPL(t, "testdata/toy.fg")
	c.expect("loaded testdata/toy.fg")
	c.expect("fg> ")
	// Tab completes keywords and declared names.
	c.pty.Write([]byte("lear\t"))
	c.expect("learn")
	c.pty.Write([]byte{3})
	c.expect("fg> ")
	c.typeLine("param zeta = 0.5")
	c.expect("fg> ")
	c.pty.Write([]byte("param zz = zet\t\r"))
	c.expect("fg> ")
	c.typeLine(":show zz")
	c.expect("param zz = 0.5")
	// Ctrl-C discards a half-typed statement, Ctrl-D leaves.
	c.typeLine("data q = [1,")
	c.expect("... ")
	c.pty.Write([]byte{3})
	c.expect("fg> ")
	c.pty.Write([]byte{4})
	time.Sleep(100 * time.Millisecond)
}

// TestREPLInterruptRun: Ctrl-C during :run cancels the inference and
// returns to the prompt; the session goes on.
func TestREPLInterruptRun(t *testing.T) {
	if testing.Short() {
		t.Skip("spends a second waiting for the run to start")
	}
	c := startREPL(t, "testdata/slow.fg")
	c.expect("loaded testdata/slow.fg")
	c.expect("fg> ")
	c.typeLine(":run")
	time.Sleep(time.Second)
	c.pty.Write([]byte{3})
	out := c.expect("interrupted")
	if !strings.Contains(out, "canceled") {
		t.Errorf("partial results should show status canceled:\n%s", out)
	}
	c.expect("fg> ")
	c.typeLine(":show w")
	c.expect("w[1]")
	c.typeLine(":quit")
}

// TestREPLFactorGraph types a hierarchy with a latent scalar mean (a
// factor-graph model) into the REPL, runs it and reads the scalar and an
// element of the vector latent.
func TestREPLFactorGraph(t *testing.T) {
	c := startREPL(t)
	c.expect("fg> ")
	for _, l := range []string{
		"data y: real[3] = [1, 4, -2]",
		"latent mu: real ~ normal(0, 100)",
		"latent theta: real[3] ~ normal(mu, 4)",
		"y ~ normal(theta, 1)",
		"infer ep",
	} {
		c.typeLine(l)
		c.expect("fg> ")
	}
	c.typeLine(":run")
	out := c.expect("theta[2]")
	if !strings.Contains(out, "mu") || !strings.Contains(out, "converged") {
		t.Errorf(":run output lacks mu or the status:\n%s", out)
	}
	// E[mu | y] = Σ y_j / (3 + 5/100) for the prior mu ~ N(0, 100), theta_j ~ N(mu, 4), y_j ~ N(theta_j, 1).
	c.typeLine("abs(mean(mu) - 3 / 3.05) < 1e-9")
	c.expect("ep: true")
	c.typeLine(":quit")
}
