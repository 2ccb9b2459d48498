// Command fg is the command-line front end of the fg probabilistic
// programming language:
//
//	fg run FILE [flags]     run the model's infer lines and print a comparison
//	fg check FILE...        compile and report every diagnostic
//	fg fmt [-w] FILE...     format model files
//	fg graph FILE           print the factor graph as DOT (--png OUT renders it)
//	fg test [FILE|DIR]...   run the models' expect statements
//	fg repl [FILE]          interactive session
//	fg rules [--markdown]   the message-rule table of the factor kinds
//	fg version              module version and VCS revision
//	fg help [COMMAND]       the commands, or one command's usage and flags
//
// Exit status: 0 success, 1 errors (bad model, failed expects, canceled
// run), 2 usage errors, 3 a method of `fg run` failed, diverged or stalled
// (its results are still printed). docs/cli.md describes every flag.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/fg-infer/fg/infer"
)

// Exit codes.
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2
	exitMethod = 3 // fg run: some result is failed, diverged, stalled or canceled
)

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
		generalHelp(e.stderr)
		return exitUsage
	}
	if err := infer.CheckBudgetEnv(); err != nil {
		fmt.Fprintf(e.stderr, "fg: %v\n", err)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	if findCommand(name) == nil {
		return e.unknownCommand(name)
	}
	return e.command(name)(rest)
}

// command returns the entry point of the command called name (one of
// commands).
func (e *env) command(name string) func(args []string) int {
	switch name {
	case "run":
		return e.run
	case "check":
		return e.check
	case "fmt":
		return e.fmt
	case "graph":
		return e.graph
	case "test":
		return e.test
	case "repl":
		return e.replOrHelp
	case "rules":
		return e.rules
	case "version":
		return e.version
	}
	return e.help
}

// replOrHelp starts the REPL, or prints its help for -h (the REPL takes a
// file, no flags).
func (e *env) replOrHelp(args []string) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			writeCommandHelp(e.stdout, findCommand("repl"), nil)
			return exitOK
		}
	}
	return e.repl(args)
}

// usageError prints a short message and the usage line of a command, exit
// 2; for a helpRequest (-h, --help) it prints the command's help on stdout,
// exit 0.
func (e *env) usageError(cmdUsage, format string, args ...any) int {
	for _, a := range args {
		if h, ok := a.(helpRequest); ok {
			if c := commandOfUsage(cmdUsage); c != nil {
				writeCommandHelp(e.stdout, c, h.fs)
				return exitOK
			}
		}
	}
	fmt.Fprintf(e.stderr, "fg: "+format+"\n", args...)
	fmt.Fprintf(e.stderr, "usage: %s\n", cmdUsage)
	if c := commandOfUsage(cmdUsage); c != nil {
		fmt.Fprintf(e.stderr, "Run 'fg help %s' for every flag.\n", c.name)
	}
	return exitUsage
}
