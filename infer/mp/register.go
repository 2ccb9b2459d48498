package mp

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// The method registry's engine infer.NetEP is this package: compile asks
// it, through the registry, whether it runs a graph under a divergence.
func init() {
	infer.RegisterNetCheck(infer.NetEP, func(net *graph.Net, st infer.Settings) []infer.NetRefusal {
		opt := Options{Alpha: 1}
		if a, ok := st.Divergence.(infer.Alpha); ok {
			opt.Alpha = a.A
		}
		var out []infer.NetRefusal
		for _, d := range Supports(net, opt) {
			out = append(out, infer.NetRefusal{Pos: d.Pos, Msg: d.Msg})
		}
		return out
	})
}
