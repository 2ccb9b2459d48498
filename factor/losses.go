package factor

import "github.com/fg-infer/fg/stdlib"

var (
	logisticLossBuiltin = stdlib.Builtin{Name: "logistic_loss", Kind: stdlib.Loss,
		Params: []stdlib.Param{stdlib.Required("m", stdlib.NumericT, "margin y·aᵀw")},
		Doc:    "log(1 + exp(−m)), elementwise"}
	hingeBuiltin = stdlib.Builtin{Name: "hinge", Kind: stdlib.Loss,
		Params: []stdlib.Param{stdlib.Required("m", stdlib.NumericT, "margin")},
		Doc:    "max(0, 1 − m), elementwise"}
	quasi01Builtin = stdlib.Builtin{Name: "quasi01", Kind: stdlib.Loss,
		Params: []stdlib.Param{stdlib.Required("m", stdlib.NumericT, "margin"),
			stdlib.Optional("eps", stdlib.NumberT, "0.1", "width of the linear part (> 0)")},
		Doc: "Roche's quasi 0–1 loss: 1 − eps·m (m < 0), 1 − m/eps (0 ≤ m < eps), 0 (m ≥ eps), elementwise"}
)

// The losses (stdlib/loss) enter a model inside a `factor exp(...)`
// potential, exp(−β Σ LOSS(margin)); their rules are the potential's:
// moments from the numerical scheme, log-density for the gold standards.

// LogisticLoss is log(1 + e^{−m}).
type LogisticLoss struct{}

// Hinge is max(0, 1 − m).
type Hinge struct{}

// Quasi01 is Roche's quasi 0–1 loss; its Laplace schemes are unstable
// (the loss is flat beyond eps), hence experimental.
type Quasi01 struct{}

func (LogisticLoss) Name() string             { return "logistic_loss" }
func (LogisticLoss) Role() Role               { return Loss }
func (LogisticLoss) Builtin() *stdlib.Builtin { return &logisticLossBuiltin }
func (LogisticLoss) numerical()               {}

func (Hinge) Name() string             { return "hinge" }
func (Hinge) Role() Role               { return Loss }
func (Hinge) Builtin() *stdlib.Builtin { return &hingeBuiltin }
func (Hinge) numerical()               {}

func (Quasi01) Name() string             { return "quasi01" }
func (Quasi01) Role() Role               { return Loss }
func (Quasi01) Builtin() *stdlib.Builtin { return &quasi01Builtin }
func (Quasi01) numerical()               {}

// Quality: FF-EP with LA/QLA on the quasi 0–1 loss is unstable (roche §4).
func (Quasi01) Quality(c Column) Quality {
	if c == epKL {
		return Experimental
	}
	return Stable
}
