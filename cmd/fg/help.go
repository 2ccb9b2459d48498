package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fg-infer/fg/lang/diag"
)

// command is one fg subcommand: its name, usage line (the constant in the
// command's own file), one-line summary for `fg help` and a paragraph for
// `fg help NAME` (env.command is its entry point). The flags are described from the
// command's own FlagSet (parseInterspersed turns -h into a helpRequest), so
// a flag cannot be added without appearing in its help.
type command struct{ name, usage, summary, doc string }

// commands lists fg's subcommands in the order `fg help` shows them.
var commands = []command{
	{"run", runUsage, "compile a model, run its infer lines, print one comparison", `Compile the model FILE, run its infer lines (those of the file, then --method lines,
or only the --only labels) and print their results side by side: a table (default),
JSON (docs/json.md) or CSV. With a learn statement the params are learned first.
Ctrl-C stops the running methods and prints the partial results.`},
	{"check", checkUsage, "compile models and print every diagnostic", `Compile every FILE without building Gram matrices or running anything and print all
diagnostics (errors and warnings with positions); exit 1 if a file has errors.`},
	{"fmt", fmtUsage, "print model files in canonical form", `Print each FILE in canonical form (layout, spacing, comments kept); -w rewrites the
files in place, -l lists those whose formatting differs.`},
	{"graph", graphUsage, "print the factor graph as DOT", `Print the factor graph of the model FILE in graphviz's DOT language (compiled with --set and
--data as fg run does); --png renders it with graphviz's dot.`},
	{"test", testUsage, "run the expect statements of models", `Run every model given (directories are searched for *.fg files, skipping testdata
and hidden folders; default .) and check its expect statements; exit 1 if any fails.`},
	{"repl", replUsage, "interactive session (docs/repl.md)", `Start an interactive session, optionally with the model FILE loaded: type statements
to extend the model, expressions to evaluate them against the last results, and
:commands (:help lists them).`},
	{"rules", rulesUsage, "print the message-rule table of the factor kinds", `Print which method and divergence handle each factor kind in each role (prior,
likelihood, potential, loss), derived from package factor's types: stable, exp.
(experimental: a compile-time warning), +approx (moments from the approx scheme) or
— (no rule). --markdown prints the table embedded in docs/language.md.`},
	{"version", versionUsage, "print fg's version and VCS revision", `Print the module version, the VCS revision and time, and the Go version fg was built
with (from the binary's build information).`},
	{"help", helpUsage, "print this help, or a command's usage and flags", `Print the list of commands, or the usage of the command NAME with every flag
described (the same as fg NAME -h).`},
}

const helpUsage = "fg help [COMMAND]"

// findCommand returns the command called name, or nil.
func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// commandNames lists the command names.
func commandNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
	}
	return out
}

// generalHelp writes the list of commands.
func generalHelp(w io.Writer) {
	fmt.Fprint(w, "fg compiles factor-graph models and solves them by message passing.\n\nusage: fg <command> [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'fg help <command>' (or fg <command> -h) for its usage and flags; docs/cli.md has the details.\n")
}

// help prints the general help or a command's (fg help [COMMAND]).
func (e *env) help(args []string) int {
	switch {
	case len(args) == 0:
		generalHelp(e.stdout)
		return exitOK
	case len(args) > 1:
		return e.usageError(helpUsage, "help takes one command name")
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" {
		name = "help"
	}
	c := findCommand(name)
	if c == nil {
		return e.unknownCommand(args[0])
	}
	return e.commandHelp(c)
}

// commandHelp prints a command's help: commands with flags print it from
// their FlagSet when given -h; the others have no flags to describe.
func (e *env) commandHelp(c *command) int {
	if c.name == "repl" || c.name == "help" {
		writeCommandHelp(e.stdout, c, nil)
		return exitOK
	}
	return e.command(c.name)([]string{"-h"})
}

// writeCommandHelp writes a command's usage, description and flags.
func writeCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.usage, c.doc)
	if fs == nil {
		return
	}
	type row struct{ name, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		name := flagName(f.Name)
		if value != "" {
			name += " " + value
		}
		width = max(width, len(name))
		rows = append(rows, row{name, usage})
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprint(w, "\nflags:\n")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.name, r.usage)
	}
}

// flagName writes a flag as users type it: -w for one letter, --json else.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownCommand reports a command that does not exist, with the nearest
// one when it is close.
func (e *env) unknownCommand(name string) int {
	msg := fmt.Sprintf("fg: unknown command %q", name)
	if s := diag.Suggest(name, commandNames()); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	fmt.Fprintf(e.stderr, "%s\nusage: fg <command> [arguments]\nRun 'fg help' for the list of commands.\n", msg)
	return exitUsage
}

// helpRequest is the error parseInterspersed returns for -h/--help: the
// command's usageError prints its help from fs and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }

// commandOfUsage finds the command whose usage line is usage.
func commandOfUsage(usage string) *command {
	fields := strings.Fields(usage)
	if len(fields) < 2 {
		return nil
	}
	return findCommand(fields[1])
}
