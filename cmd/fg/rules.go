package main

import (
	"flag"
	"fmt"

	"github.com/fg-infer/fg/factor"
)

const rulesUsage = "fg rules [--markdown]"

// rules prints the message-rule table derived from package factor's kinds:
// one row per factor kind and role, one column per method and divergence
// (plus predict and learn); a cell is stable, exp. (experimental, a
// compile-time warning), +approx when the moments come from the infer
// line's numerical scheme, or — when no rule exists. Then the rules of the
// typed factor graph, one row per (kind, edge, family): how the message is
// computed under ep and alpha(0).
func (e *env) rules(args []string) int {
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	md := fs.Bool("markdown", false, "print the table as markdown (as in docs/language.md)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(rulesUsage, "%v", err)
	}
	if len(rest) > 0 {
		return e.usageError(rulesUsage, "rules takes no arguments")
	}
	if *md {
		fmt.Fprint(e.stdout, factor.Markdown()+"\n"+factor.NetMarkdown())
		return exitOK
	}
	fmt.Fprint(e.stdout, factor.Text()+"\n"+factor.NetText())
	return exitOK
}
