package graph

import "github.com/fg-infer/fg/lang/ast"

// Form is the affine form Σ_k Coefs[k]·x[Vars[k]] + Const over a factor
// graph's variables; Vars are distinct and Coefs non-zero. Vars and Coefs
// may be views of arrays shared by many factors: read them, never write.
// (Affines stores many forms as columns; Affine is one of them with its
// factor's numbers.)
type Form struct {
	Vars  []int
	Coefs []float64
	Const float64
}

// LinearGaussian is the factor N(0; Aff(x), Var) with Var > 0: the prior or
// conditional of variable Target (Aff's coefficient of Target is 1).
type LinearGaussian struct {
	Aff    Form
	Var    float64
	Target int     // the variable this factor is the prior / conditional of
	Factor int     // the factor's number (compile.Model.Factors; shared by the elements of one whole-latent normal prior)
	Label  string  // e.g. "normal(x[3])"
	Pos    ast.Pos // the statement's (NoPos in graphs not compiled from source)
}
