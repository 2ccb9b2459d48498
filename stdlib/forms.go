package stdlib

import (
	"fmt"

	"github.com/fg-infer/fg/stdlib/ad"
)

// Form is another way to give a parameter, by naming the form: a spread
// whose canonical parameter is a variance may be given as a standard
// deviation, `normal(0, sd = 2)`, or as a precision, `normal(mu, precision
// = 4)`. Positional arguments are always in the canonical form.
type Form struct {
	// Name is the argument name that selects the form.
	Name string
	// Doc says what the value is and how it becomes the canonical one.
	Doc string
	// canonical maps a value x > 0 given in this form to the canonical
	// parameter, on a jet (the value's derivatives in learned params).
	canonical func(x ad.Jet) ad.Jet
}

// Canonical converts x, given in form f, to the parameter's canonical value.
// The forms are defined for finite x > 0 only; anything else is an error
// naming the form, so that `sd = -2` is not silently read as a variance 4.
func (f *Form) Canonical(x float64) (float64, error) {
	if !(x > 0) || x > maxFloat {
		return 0, fmt.Errorf("`%s` must be > 0 and finite, got %g", f.Name, x)
	}
	y := f.canonical(ad.Const(x)).V
	if !(y > 0) || y > maxFloat {
		return 0, fmt.Errorf("`%s = %g` gives %g, outside the floating-point range", f.Name, x, y)
	}
	return y, nil
}

// CanonicalJet converts the jet x, given in form f, to the parameter's
// canonical value with its derivatives (learning's exact derivatives of
// `sd = exp(p)`); Canonical checks the value.
func (f *Form) CanonicalJet(x ad.Jet) ad.Jet { return f.canonical(x) }

const maxFloat = 1.7976931348623157e308

var (
	sdForm        = Form{Name: "sd", Doc: "standard deviation σ: variance σ²", canonical: func(x ad.Jet) ad.Jet { return x.Mul(x) }}
	varForm       = Form{Name: "var", Doc: "variance σ²", canonical: func(x ad.Jet) ad.Jet { return x }}
	precisionForm = Form{Name: "precision", Doc: "precision τ: variance 1/τ", canonical: func(x ad.Jet) ad.Jet { return x.Recip() }}
)

// VarianceForms are the named forms of a variance-like parameter called
// canonical: `sd`, `var` and `precision`, except the one named canonical
// itself (normal's `var` is its own name). Every family with a scale uses
// them, so `sd =` means a standard deviation in every distribution.
func VarianceForms(canonical string) []Form {
	var out []Form
	for _, f := range []Form{sdForm, varForm, precisionForm} {
		if f.Name != canonical {
			out = append(out, f)
		}
	}
	return out
}

// Form returns the form called name of parameter p, or nil when name is p's
// own name (the canonical form) or not one of its forms.
func (p Param) Form(name string) *Form {
	for i := range p.Forms {
		if p.Forms[i].Name == name {
			return &p.Forms[i]
		}
	}
	return nil
}

// accepts reports whether the named argument name binds to p: its own name
// or one of its forms.
func (p Param) accepts(name string) bool {
	return p.Name == name || p.Form(name) != nil
}

// formNames renders p's forms for a signature: "var | sd = | precision =".
func (p Param) formNames() string {
	s := p.Name
	for _, f := range p.Forms {
		s += " | " + f.Name + " ="
	}
	return s
}
