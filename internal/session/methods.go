package session

import (
	"github.com/fg-infer/fg/compile"
)

// compileMethods turns the --method specs into infer specs labelled as
// infer lines appended to the model (compile.MethodSpecs). For a libDAI
// file the specs replace the default infer lines (bp and exact).
func compileMethods(cm *compile.Model, libdai bool, methods []string) ([]*compile.InferSpec, error) {
	if len(methods) == 0 {
		return nil, nil
	}
	if libdai {
		cm.Infers = nil
	}
	return compile.MethodSpecs(cm, methods)
}
