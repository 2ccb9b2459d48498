package fg

import (
	"strconv"

	"github.com/fg-infer/fg/compile"
)

// compileMethods turns the --method specs into infer specs with
// compile.MethodSpec. A label that collides with an existing infer line
// gets a numeric suffix (_2, _3, ...), as duplicate infer lines do. For a
// libDAI file the specs replace the default infer lines (bp and exact).
func compileMethods(cm *compile.Model, src []byte, methods []string) ([]*compile.InferSpec, error) {
	if len(methods) == 0 {
		return nil, nil
	}
	if compile.IsLibDAI(src) {
		cm.Infers = nil
	}
	used := map[string]bool{}
	for _, s := range cm.Infers {
		used[s.Label] = true
	}
	var out []*compile.InferSpec
	for _, spec := range methods {
		s, err := compile.MethodSpec(cm, spec)
		if err != nil {
			return nil, err
		}
		s.Label = uniqueLabel(used, s.Label)
		used[s.Label] = true
		out = append(out, s)
	}
	return out, nil
}

func uniqueLabel(used map[string]bool, l string) string {
	if !used[l] {
		return l
	}
	for i := 2; ; i++ {
		if c := l + "_" + strconv.Itoa(i); !used[c] {
			return c
		}
	}
}
