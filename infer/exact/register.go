package exact

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// The method registry's engine infer.NetExact is RunNet: compile asks it,
// through the registry, whether it can plan a graph's exact posterior.
func init() {
	infer.RegisterNetCheck(infer.NetExact, func(net *graph.Net, _ infer.Settings) []infer.NetRefusal {
		if _, err := PlanNet(net); err != nil {
			return []infer.NetRefusal{{Msg: err.Error()}}
		}
		return nil
	})
}
