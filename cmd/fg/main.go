// Command fg is the command-line front end of the fg probabilistic
// programming language:
//
//	fg run FILE [flags]     run the model's infer lines and print a comparison
//	fg check FILE...        compile and report every diagnostic
//	fg fmt [-w] FILE...     format model files
//	fg graph FILE           print the factor graph as DOT (--png OUT renders it)
//	fg test [FILE|DIR]...   run the models' expect statements
//	fg repl [FILE]          interactive session
//
// Exit status: 0 success, 1 errors (bad model, failed expects, canceled
// run), 2 usage errors. docs/cli.md describes every flag.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usage = `usage: fg <command> [arguments]

commands:
  run FILE [--set k=v]... [--data name=path]... [--method SPEC]...
           [--only LABEL]... [--json | --csv] [--all] [--plot OUT.png] [--test PATH] [--check]
  check FILE...
  fmt [-w] FILE...
  graph FILE [--png OUT.png]
  test [FILE|DIR]...
  repl [FILE]
  help

Run 'fg help' for this text; docs/cli.md has the details.
`

// env is the process environment a command sees; tests substitute it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrTTY: progress lines are shown only on a terminal.
	stderrTTY bool
	stdinTTY  bool // the REPL uses line editing only on a terminal
	// sources holds text that is not in a file (REPL input) for diagnostics.
	sources map[string][]byte
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, stderrTTY: isTerminal(os.Stderr), stdinTTY: isTerminal(os.Stdin)}
	os.Exit(e.main(os.Args[1:]))
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// main dispatches a command; a panic anywhere becomes "internal error"
// (with the stack only under FG_DEBUG=1) and exit status 1.
func (e *env) main(args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(e.stderr, "fg: internal error: %v\n", p)
			if os.Getenv("FG_DEBUG") == "1" {
				e.stderr.Write(debug.Stack())
			} else {
				fmt.Fprintln(e.stderr, "(set FG_DEBUG=1 to see the stack; please report this)")
			}
			code = exitError
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return e.run(rest)
	case "check":
		return e.check(rest)
	case "fmt":
		return e.fmt(rest)
	case "graph":
		return e.graph(rest)
	case "test":
		return e.test(rest)
	case "repl":
		return e.repl(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, usage)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "fg: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// usageError prints a short message and the usage line of a command.
func (e *env) usageError(cmdUsage, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "fg: "+format+"\n", args...)
	fmt.Fprintf(e.stderr, "usage: %s\n", cmdUsage)
	return exitUsage
}
