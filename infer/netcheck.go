package infer

import (
	"fmt"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// NetRefusal is an engine's reason not to run a typed factor graph: why,
// and the position of the factor it is about (zero for the whole graph).
type NetRefusal struct {
	Pos ast.Position
	Msg string
}

// NetCheck is an engine's own check of a typed factor graph under the
// settings of an infer line (the rules its kinds need, its size limits).
type NetCheck func(net *graph.Net, st Settings) []NetRefusal

var netChecks = map[Engine]NetCheck{}

// RegisterNetCheck installs engine e's check of typed factor graphs. The
// engine's package calls it from an init function, so that compile asks
// the engine at compile time without importing it (the phase order:
// compile comes before the engines).
func RegisterNetCheck(e Engine, check NetCheck) { netChecks[e] = check }

// CheckNet runs engine e's check of net under st. An engine whose package
// is not linked into the program refuses every graph.
func CheckNet(e Engine, net *graph.Net, st Settings) []NetRefusal {
	check, ok := netChecks[e]
	if !ok {
		return []NetRefusal{{Msg: fmt.Sprintf("internal error: engine %d is not linked into this program", e)}}
	}
	return check(net, st)
}
