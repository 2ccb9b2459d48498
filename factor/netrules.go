package factor

import (
	"fmt"
	"strings"

	"github.com/fg-infer/fg/graph"
)

// NetRule is one row of the message rules of the typed factor graph: the
// message of kind Kind to a variable of family Family on edge Edge, under
// EP (kl and alpha(a)) and VMP (alpha(0)); "—" where the kind has no such
// rule.
type NetRule struct {
	Kind    NetKind
	Edge    string
	Family  graph.Family
	EP, VMP string
}

// NetRules lists the rules of every kind of the typed factor graph, kind
// by kind in table order, edge by edge, family by family.
func NetRules() []NetRule {
	var out []NetRule
	for _, k := range kinds {
		nk, ok := k.(NetKind)
		if !ok {
			continue
		}
		_, ep := k.(EP)
		_, vmp := k.(VMP)
		for _, e := range nk.NetEdges() {
			for _, f := range e.Families {
				r := NetRule{Kind: nk, Edge: e.Name, Family: f, EP: "—", VMP: "—"}
				if ep {
					r.EP = e.EP
				}
				if vmp {
					r.VMP = e.VMP
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// NetMarkdown renders NetRules as a markdown table; docs/families.md embeds
// it between <!-- netrules:begin --> and <!-- netrules:end --> (a test keeps
// them equal; `go test ./factor -update` rewrites the docs).
func NetMarkdown() string {
	var b strings.Builder
	b.WriteString("| factor | role | edge | variable | ep (kl, alpha(a)) | alpha(0) (VMP) |\n|---|---|---|---|---|---|\n")
	for _, r := range NetRules() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Kind.Name(), r.Kind.Role(), r.Edge, r.Family, r.EP, r.VMP)
	}
	return b.String()
}

// NetText renders NetRules for a terminal (`fg rules`).
func NetText() string {
	var b strings.Builder
	b.WriteString("message rules on the typed factor graph (edge, variable family: ep | alpha(0))\n")
	for _, r := range NetRules() {
		fmt.Fprintf(&b, "  %s (%s) %s, %s: %s | %s\n", r.Kind.Name(), r.Kind.Role(), r.Edge, r.Family, r.EP, r.VMP)
	}
	return b.String()
}
