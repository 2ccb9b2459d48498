package kernel

import "fmt"

// Kind is the constructor of a kernel expression of the fg language: a
// leaf with hyperparameters (se, matern32, matern52, linear, ard, bias,
// white) or a combination of two or more terms (sum, prod: `k1 + k2`,
// `k1 * k2`). compile's KernelSpec and infer/learn's Kernel carry one, and
// FromSpec builds its Kernel. The zero Kind is no kernel.
type Kind int

// The kernel kinds.
const (
	KindSE Kind = iota + 1
	KindMatern32
	KindMatern52
	KindLinear
	KindARD
	KindBias
	KindWhite
	KindSum
	KindProd
)

// kindNames are the kinds' names in the language (the leaves' builtin
// names, stdlib/builtins.go).
var kindNames = [...]string{KindSE: "se", KindMatern32: "matern32", KindMatern52: "matern52",
	KindLinear: "linear", KindARD: "ard", KindBias: "bias", KindWhite: "white", KindSum: "sum", KindProd: "prod"}

func (k Kind) String() string {
	if k <= 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// KindOf returns the kind called name; ok is false for a name that is no
// kernel.
func KindOf(name string) (k Kind, ok bool) {
	for k := KindSE; int(k) < len(kindNames); k++ {
		if kindNames[k] == name {
			return k, true
		}
	}
	return 0, false
}

// Composite reports whether k combines terms (sum, prod) rather than
// holding hyperparameters.
func (k Kind) Composite() bool { return k == KindSum || k == KindProd }
