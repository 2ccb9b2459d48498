//go:build unix

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
)

// TestPlainLines: lines end at "\n" or "\r\n", a last line without a
// newline is read, control bytes are text, and a line over the bound is
// skipped with errLongLine and reading goes on.
func TestPlainLines(t *testing.T) {
	p := newPlainLines(strings.NewReader("a\tb\r\n\x00c\n" + strings.Repeat("x", 40) + "\nlast"))
	p.max = 20
	for _, want := range []struct {
		line string
		err  error
	}{{"a\tb", nil}, {"\x00c", nil}, {"", errLongLine}, {"last", nil}, {"", io.EOF}} {
		line, err := p.Readline()
		if line != want.line || !errors.Is(err, want.err) && err != want.err {
			t.Errorf("got %q, %v; want %q, %v", line, err, want.line, want.err)
		}
	}
	// A line longer than bufio's buffer is read whole.
	long := strings.Repeat("y", 10000)
	p = newPlainLines(strings.NewReader(long + "\n"))
	if line, err := p.Readline(); line != long || err != nil {
		t.Errorf("%d-byte line: got %d bytes, %v", len(long), len(line), err)
	}
}

// TestREPLPipedInput runs fg repl on piped input (no terminal: plain lines,
// no line editor). Tab, Ctrl-R, Ctrl-S and Ctrl-Z are text the parser
// rejects with a position, never a panic or a stopped process; a line
// starting with NUL does not hang the session; a 40,000-term line is read
// and compiled in linear time (a line editor re-rendering it took 28 s:
// the bound is 10 s of CPU time, load-independent). After each, the
// session goes on (the :show after it answers) and fg exits 0 at the end
// of its input.
func TestREPLPipedInput(t *testing.T) {
	terms := make([]string, 40000)
	for i := range terms {
		terms[i] = "1"
	}
	for _, tc := range []struct{ name, input, want string }{
		{"tab", "param b = 1\nlear\tn\n", "unknown statement `lear`"},
		{"ctrl-r", "param b = 1\n\x12\n", `unexpected character "\x12"`},
		{"ctrl-s", "param b = 1\nparam c = \x13\n", `unexpected character "\x13"`},
		{"ctrl-z", "param b = 1\n\x1a\n", `unexpected character "\x1a"`},
		{"nul", "\x00param b = 1\nparam b = 1\n", `unexpected character "\x00"`},
		{"40000 terms", "param b = " + strings.Join(terms, " + ") + "\n", "param b = 40000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := fgCommand(t, "repl")
			// Its own process group: a line editor answering Ctrl-Z with
			// SIGTSTP to its group must stop fg only, not the test.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Stdin = strings.NewReader(tc.input + ":show b\n")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if errors.As(err, &ee) || err != nil {
					t.Fatalf("exit: %v\n%s", err, out.String())
				}
			case <-time.After(60 * time.Second): // a hang, or a process stopped by Ctrl-Z
				cmd.Process.Kill()
				t.Fatalf("fg repl did not end 60 s after its input did:\n%s", out.String())
			}
			text := out.String()
			if !strings.Contains(text, tc.want) || !strings.Contains(text, "param b = ") || strings.Contains(text, "goroutine ") || strings.Contains(text, "panic") {
				t.Errorf("want %q and the :show answer, no panic:\n%s", tc.want, text)
			}
			if cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); cpu > 10*time.Second {
				t.Errorf("used %v of CPU time", cpu)
			}
		})
	}
}

// TestFIFORefused: a FIFO with no writer, named as a model, an import, a
// csv or libsvm file or a --data override, is refused at once with
// "not a regular file" (opening it would block forever).
func TestFIFORefused(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/p"
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	write := func(name, src string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csvModel := write("csv.fg", "data x = csv(\"p\")\n")
	cases := [][]string{
		{"check", fifo}, {"run", fifo}, {"fmt", fifo},
		{"check", write("import.fg", "import \"p\"\n")},
		{"check", csvModel},
		{"check", write("libsvm.fg", "data X = libsvm(\"p\")\n")},
		{"run", write("data.fg", "data x = csv(\"d.csv\")\n"), "--data", "x=" + fifo},
	}
	for _, args := range cases {
		done := make(chan string, 1)
		go func() {
			_, errb, code := runFG(args...)
			done <- fmt.Sprintf("exit %d: %s", code, errb)
		}()
		select {
		case out := <-done:
			if !strings.HasPrefix(out, "exit 1") || !strings.Contains(out, "not a regular file (a FIFO or pipe)") {
				t.Errorf("fg %s: %s", strings.Join(args, " "), out)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("fg %s blocked on the FIFO", strings.Join(args, " "))
		}
	}
}
