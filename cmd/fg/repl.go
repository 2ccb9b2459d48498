package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/internal/session"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
)

const replUsage = "fg repl [FILE]"

const replHelp = `Type fg statements to extend the model (data, param, latent, ~, factor,
for, infer, predict, expect); a statement continues on the next line
("... ") until it is complete. Commands:
  :load FILE        replace the session with a model file
  :run [LABEL]      run every infer line (or one) and show the comparison
  :show NAME        a variable's or prediction's marginals, or a param/data value
  :set NAME=VALUE   override a param (like --set)
  :graph            print the factor graph
  :methods          list the infer lines and the available methods
  :rules            the message-rule table (factor kinds × methods)
  :source           print the session's accumulated source
  :help             this text
  :quit             leave (Ctrl-D works too)
Ctrl-C cancels a running inference or discards a half-typed statement.
`

// replSession is the state of an interactive session: the accumulated
// source (a loaded file plus the statements typed since), the overrides,
// the compiled model and the last results.
type replSession struct {
	e        *env
	rl       lineReader
	name     string // file name of the source (positions, relative paths)
	src      []byte
	set      map[string]string
	model    *session.Model
	results  *session.Results
	typed    int // number of statements typed (for <repl:N> names)
	complete *completer
}

func (e *env) repl(args []string) int {
	if len(args) > 1 {
		return e.usageError(replUsage, "repl takes at most one model file")
	}
	s := &replSession{e: e, name: "<repl>", set: map[string]string{}}
	s.complete = &completer{s: s}
	rl, err := e.lineReader(s.complete)
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %v\n", err)
		return exitError
	}
	defer rl.Close()
	s.rl = rl
	if len(args) == 1 {
		s.load(args[0])
	}
	fmt.Fprintln(e.stdout, "fg repl — :help for commands, Ctrl-D to leave")
	s.loop()
	return exitOK
}

// lineReader is a line editor with history and completion when stdin is a
// terminal, else plain lines (a line editor on a pipe would interpret Tab,
// Ctrl-R, Ctrl-Z … typed nowhere, and re-render long lines).
func (e *env) lineReader(complete readline.AutoCompleter) (lineReader, error) {
	if !e.stdinTTY {
		return newPlainLines(e.stdin), nil
	}
	return readline.NewEx(&readline.Config{
		Prompt: "fg> ", HistoryFile: historyFile(), AutoComplete: complete,
		InterruptPrompt: "^C", EOFPrompt: "", Stdin: io.NopCloser(e.stdin), Stdout: e.stdout, Stderr: e.stderr,
		FuncIsTerminal: func() bool { return true },
	})
}

// historyFile is os.UserConfigDir()/fg/history ("" disables history when
// the folder cannot be made).
func historyFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	dir = filepath.Join(dir, "fg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return filepath.Join(dir, "history")
}

// loop reads statements and commands until Ctrl-D or :quit.
func (s *replSession) loop() {
	var pending []string
	for {
		if len(pending) == 0 {
			s.rl.SetPrompt("fg> ")
		} else {
			s.rl.SetPrompt("... ")
		}
		line, err := s.rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			pending = nil
			continue
		case errors.Is(err, errLongLine):
			fmt.Fprintf(s.e.stderr, "fg: %v\n", err)
			pending = nil
			continue
		case err != nil: // io.EOF: Ctrl-D
			fmt.Fprintln(s.e.stdout)
			return
		}
		if len(pending) == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			if !s.command(strings.TrimSpace(line)) {
				return
			}
			continue
		}
		pending = append(pending, line)
		text := strings.Join(pending, "\n")
		if strings.TrimSpace(text) == "" {
			pending = nil
			continue
		}
		if parser.Incomplete([]byte(text)) {
			continue
		}
		pending = nil
		s.statements(text)
	}
}

// statements appends typed statements to the session source and recompiles;
// on error the statements are rejected and the session is unchanged.
func (s *replSession) statements(text string) {
	s.typed++
	src := append(append(append([]byte(nil), s.src...), '\n'), text...)
	src = append(src, '\n')
	if s.evalExpr(text) {
		return
	}
	m, err := session.LoadSource(s.name, src, session.Overrides{Set: s.set, Syntax: compile.REPLSyntax})
	if err != nil {
		s.registerSource(src)
		s.e.printErrors(err)
		return
	}
	oldLines := bytes.Count(s.src, []byte("\n")) + 1
	s.src, s.model = src, m
	s.registerSource(src)
	var fresh ast.ErrorList // warnings about the statements just typed
	for _, w := range m.Compiled().Warnings {
		if w.Pos.Line > oldLines {
			fresh = append(fresh, w)
		}
	}
	s.e.printWarnings(fresh)
}

// evalExpr prints the value of text against the last results when text is
// an expression rather than a statement (e.g. mean(w[0]), ep.logz); it
// reports whether it was one.
func (s *replSession) evalExpr(text string) bool {
	if _, err := parser.ParseStmt(ast.NewFileSet(), s.name, []byte(text)); err == nil {
		return false
	}
	fset := ast.NewFileSet()
	x, err := parser.ParseExprFrom(fset, "", text)
	if err != nil {
		return false
	}
	if s.results == nil {
		fmt.Fprintln(s.e.stderr, "no results yet: :run first to evaluate expressions")
		return true
	}
	for _, v := range s.results.Eval(fset, x) {
		prefix := ""
		if v.Label != "" {
			prefix = v.Label + ": "
		}
		if v.Err != nil {
			fmt.Fprintf(s.e.stdout, "%serror: %v\n", prefix, v.Err)
			continue
		}
		fmt.Fprintf(s.e.stdout, "%s%s\n", prefix, v.Value)
	}
	return true
}

// registerSource lets diagnostics quote the session's in-memory source.
func (s *replSession) registerSource(src []byte) {
	if s.e.sources == nil {
		s.e.sources = map[string][]byte{}
	}
	s.e.sources[s.name] = src
}

// load replaces the session with a model file.
func (s *replSession) load(path string) {
	src, err := safefile.ReadFile(nil, path, safefile.MaxSource)
	if err != nil {
		fmt.Fprintf(s.e.stderr, "fg: %s: cannot read: %s\n", path, notExistMsg(err))
		return
	}
	m, err := session.LoadSource(path, src, session.Overrides{Set: s.set, Syntax: compile.REPLSyntax})
	if err != nil {
		s.e.printErrors(err)
		return
	}
	delete(s.e.sources, s.name)
	s.name, s.src, s.model, s.results = path, src, m, nil
	s.e.printWarnings(m.Compiled().Warnings)
	fmt.Fprintf(s.e.stdout, "loaded %s (model %s: %d infer line(s))\n", path, m.Name(), len(m.Labels()))
}

// runModel runs the model with Ctrl-C canceling the inference only.
func (s *replSession) runModel(labels []string) {
	if s.model == nil {
		fmt.Fprintln(s.e.stderr, "fg: nothing to run: type statements or :load FILE")
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := []session.RunOption{session.Only(labels...)}
	if s.e.stderrTTY {
		opts = append(opts, session.Progress(newProgress(s.e.stderr).update))
	}
	res, err := s.model.Run(ctx, opts...)
	if s.e.stderrTTY {
		clearProgress(s.e.stderr)
	}
	if err != nil && (res == nil || ctx.Err() == nil) {
		s.e.printErrors(err)
		return
	}
	s.results = res
	f := &runFlags{}
	s.e.present(s.model, res, f, nil)
	if ctx.Err() != nil {
		fmt.Fprintln(s.e.stderr, "interrupted: results are partial")
	}
	if len(s.model.Compiled().Expects) > 0 {
		s.e.reportExpects(res.Expects(), true)
	}
}
