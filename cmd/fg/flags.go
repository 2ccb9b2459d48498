package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fg-infer/fg/lang/diag"
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// keyValues splits NAME=VALUE flags into a map; a missing '=' or empty name
// is a usage error.
func keyValues(flagName string, kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s %q: want NAME=VALUE", flagName, kv)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// parseInterspersed parses flags that may appear before, between or after
// positional arguments (fg run model.fg --json), returning the positionals.
// "--" ends flag parsing. -h/--help gives a helpRequest (usageError prints
// the command's help); an unknown flag names the nearest defined one.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError rewrites the flag package's errors: -h is a helpRequest, and
// "flag provided but not defined: -jsn" becomes "unknown flag --jsn; did
// you mean --json?".
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return helpRequest{fs}
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	msg := "unknown flag " + flagName(name)
	if s := diag.Suggest(name, names); s != "" {
		msg += "; did you mean " + flagName(s) + "?"
	}
	return errors.New(msg)
}
