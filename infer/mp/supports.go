package mp

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// MaxStates bounds the joint states of the discrete variables of one
// factor (a factor's update enumerates them).
const MaxStates = 1 << 12

// Diagnostic is a refusal of Supports: the factor's position (resolved in
// the Net's file set) and why.
type Diagnostic struct {
	Pos ast.Position
	Msg string
}

func (d Diagnostic) Error() string { return d.Pos.String() + ": " + d.Msg }

// Supports lists what infer/mp cannot run of net under opt: a factor kind
// without the rule the divergence needs (EP for kl and alpha(a), VMP for
// alpha(0)), a variable on two edges of one factor, a factor whose
// discrete variables have more than MaxStates joint states, a power
// outside [0, 1].
func Supports(net *graph.Net, opt Options) []Diagnostic {
	var out []Diagnostic
	if !(opt.Alpha >= 0 && opt.Alpha <= 1) {
		return []Diagnostic{{Msg: fmt.Sprintf("alpha must be in [0, 1], got %g", opt.Alpha)}}
	}
	for i := range net.Factors {
		f := &net.Factors[i]
		fail := func(format string, args ...any) {
			out = append(out, Diagnostic{Pos: net.Fset.Position(f.Pos), Msg: fmt.Sprintf("%s: ", f.Label) + fmt.Sprintf(format, args...)})
		}
		if opt.VMP() {
			if _, ok := f.Kind.(factor.VMP); !ok {
				fail("%s has no VMP rule (divergence alpha(0)); %s", f.Kind.Name(), rulesOf(f.Kind))
				continue
			}
		} else if _, ok := f.Kind.(factor.EP); !ok {
			fail("%s has no EP rule; %s", f.Kind.Name(), rulesOf(f.Kind))
			continue
		}
		states := 1
		onEdge := map[int]string{}
		for _, ed := range f.Edges {
			for _, v := range ed.VarsOf() {
				if prev, dup := onEdge[v]; dup && !(ed.Selected && v == ed.Sel) {
					fail("%s is on the edges %s and %s; a variable may be on one edge of a factor", net.Vars[v].Name, prev, ed.Name)
				}
				if _, seen := onEdge[v]; !seen && net.Vars[v].Family == graph.Discrete {
					states *= net.Vars[v].Dim
					if states > MaxStates {
						fail("its discrete variables have more than %d joint states", MaxStates)
						break
					}
				}
				onEdge[v] = ed.Name
			}
		}
	}
	return out
}

func rulesOf(k graph.Kind) string {
	var have []string
	if _, ok := k.(factor.EP); ok {
		have = append(have, "ep with kl and alpha(a)")
	}
	if _, ok := k.(factor.VMP); ok {
		have = append(have, infer.DivVMP.String())
	}
	if len(have) == 0 {
		return "it runs with exact and mcmc only"
	}
	return "it runs with " + fmt.Sprint(have)
}
