package graph

import "iter"

// Affines holds factors on affine forms of scalar real variables,
//
//	f_k(x) = Σ_j Coef(k, j)·x[Var(k, j)] + Const(k),
//
// each with an observation Y, a variance Var (a linear-Gaussian factor's
// N(Y; f_k(x), Var); 0 for a likelihood site) and the index of its factor
// in the model's Graph, and a Tag the caller gives (which statement and
// likelihood it comes from: the caller keeps one record per tag, not per
// factor). They are stored as Columns, one per slot j of the forms and
// one per number, so that the factors of a plate — a 10⁶-step chain's
// conditionals x[t] − x[t−1] with variance q — are a few rules and take
// no memory per factor; what follows no rule (observations, a regression's
// coefficients) takes 8 bytes a value. This is the form in which plates
// of Gaussian factors stay runs in the IR: the compiler adds them one at
// a time, the engines read them back (At, Form) or read the columns.
//
// The zero Affines is empty and ready to use.
type Affines struct {
	arity  Column[int32]
	vars   []Column[int]
	coefs  []Column[float64]
	c, y   Column[float64]
	v      Column[float64]
	factor Column[int]
	tag    Column[int32]
	n      int
}

// Affine is one factor of an Affines. Vars and Coefs are distinct
// variables and their non-zero coefficients.
type Affine struct {
	Vars   []int
	Coefs  []float64
	Const  float64
	Y, Var float64
	Factor int // the factor's number in its model (compile.Model.Factors)
	Tag    int // the caller's
}

// Len is the number of factors.
func (a *Affines) Len() int { return a.n }

// Add appends f (its Vars and Coefs are copied into the columns).
func (a *Affines) Add(f Affine) {
	if len(f.Vars) != len(f.Coefs) {
		panic("graph: Affines.Add: variables and coefficients differ in number")
	}
	a.growSlots(len(f.Vars))
	for j := range a.vars {
		if j < len(f.Vars) {
			a.vars[j].Add(f.Vars[j])
			a.coefs[j].Add(f.Coefs[j])
		} else {
			a.vars[j].Add(-1)
			a.coefs[j].Add(0)
		}
	}
	a.arity.Add(int32(len(f.Vars)))
	a.c.Add(f.Const)
	a.y.Add(f.Y)
	a.v.Add(f.Var)
	a.factor.Add(f.Factor)
	a.tag.Add(int32(f.Tag))
	a.n++
}

// growSlots adds slots up to n: the factors before a new slot have no
// variable there (−1, coefficient 0).
func (a *Affines) growSlots(n int) {
	for len(a.vars) < n {
		var vc Column[int]
		var cc Column[float64]
		vc.AddN(-1, a.n)
		cc.AddN(0, a.n)
		a.vars, a.coefs = append(a.vars, vc), append(a.coefs, cc)
	}
}

// Arity is the number of variables of factor k.
func (a *Affines) Arity(k int) int { return int(a.arity.At(k)) }

// Form appends factor k's variables and coefficients to vars and coefs
// and returns them with its constant.
func (a *Affines) Form(k int, vars []int, coefs []float64) ([]int, []float64, float64) {
	for j := range a.Arity(k) {
		vars = append(vars, a.vars[j].At(k))
		coefs = append(coefs, a.coefs[j].At(k))
	}
	return vars, coefs, a.c.At(k)
}

// At is factor k. Its Vars and Coefs are appended to vars[:0] and
// coefs[:0] (pass nil for lists of its own, the previous factor's to
// reuse them).
func (a *Affines) At(k int, vars []int, coefs []float64) Affine {
	vs, cs, c := a.Form(k, vars[:0], coefs[:0])
	return Affine{Vars: vs, Coefs: cs, Const: c, Y: a.y.At(k), Var: a.v.At(k), Factor: a.factor.At(k), Tag: int(a.tag.At(k))}
}

// All iterates over the factors in order. The Vars and Coefs lists of a
// factor are reused for the next one: copy them to keep them.
func (a *Affines) All() iter.Seq2[int, Affine] {
	return func(yield func(int, Affine) bool) {
		var vars []int
		var coefs []float64
		for k := range a.n {
			f := a.At(k, vars, coefs)
			vars, coefs = f.Vars, f.Coefs
			if !yield(k, f) {
				return
			}
		}
	}
}

// ShiftTags adds d to every factor's tag.
func (a *Affines) ShiftTags(d int) { a.tag.Shift(int32(d)) }

// Y is factor k's observation, Var its variance, Factor its graph factor
// and Tag its tag.
func (a *Affines) Y(k int) float64   { return a.y.At(k) }
func (a *Affines) Var(k int) float64 { return a.v.At(k) }
func (a *Affines) Factor(k int) int  { return a.factor.At(k) }
func (a *Affines) Tag(k int) int     { return int(a.tag.At(k)) }

// Var0 is factor k's first variable (the target of a conditional).
func (a *Affines) Var0(k int) int { return a.vars[0].At(k) }

// AppendVars appends factor k's variables to vars.
func (a *Affines) AppendVars(k int, vars []int) []int {
	for j := range a.Arity(k) {
		vars = append(vars, a.vars[j].At(k))
	}
	return vars
}

// FactorVars iterates over the variables of the factors (a list reused
// for the next factor): for the structure passes (forest, bandwidth,
// cycles), which read nothing else.
func (a *Affines) FactorVars() iter.Seq2[int, []int] {
	return func(yield func(int, []int) bool) {
		var vars []int
		for k := range a.Len() {
			vars = a.AppendVars(k, vars[:0])
			if !yield(k, vars) {
				return
			}
		}
	}
}

// Sorted reports whether the factors are in the order of their graph
// factors (non-decreasing Factor).
func (a *Affines) Sorted() bool {
	for k := 1; k < a.n; k++ {
		if a.factor.At(k) < a.factor.At(k-1) {
			return false
		}
	}
	return true
}

// Bytes is the memory the columns hold.
func (a *Affines) Bytes() int64 {
	b := a.arity.Bytes() + a.c.Bytes() + a.y.Bytes() + a.v.Bytes() + a.factor.Bytes() + a.tag.Bytes()
	for j := range a.vars {
		b += a.vars[j].Bytes() + a.coefs[j].Bytes()
	}
	return b
}

// Slots is the number of variable slots: the largest arity.
func (a *Affines) Slots() int { return len(a.vars) }

// The columns, to read a stretch at a time (Column.AppendTo,
// Column.AppendRange) instead of a factor at a time; never write them.
// VarsCol(j) and CoefsCol(j) are slot j's variables and coefficients (−1
// and 0 for a factor of arity ≤ j).
func (a *Affines) ArityCol() *Column[int32]        { return &a.arity }
func (a *Affines) VarsCol(j int) *Column[int]      { return &a.vars[j] }
func (a *Affines) CoefsCol(j int) *Column[float64] { return &a.coefs[j] }
func (a *Affines) ConstCol() *Column[float64]      { return &a.c }
func (a *Affines) YCol() *Column[float64]          { return &a.y }
func (a *Affines) VarCol() *Column[float64]        { return &a.v }
func (a *Affines) TagCol() *Column[int32]          { return &a.tag }

// AppendRange appends factors from … to−1 of b, a stretch of each column
// at a time (Column.AppendRange: rules stay rules).
func (a *Affines) AppendRange(b *Affines, from, to int) {
	if from >= to {
		return
	}
	a.growSlots(len(b.vars))
	for j := range a.vars {
		if j < len(b.vars) {
			a.vars[j].AppendRange(&b.vars[j], from, to)
			a.coefs[j].AppendRange(&b.coefs[j], from, to)
		} else {
			a.vars[j].AddN(-1, to-from)
			a.coefs[j].AddN(0, to-from)
		}
	}
	a.arity.AppendRange(&b.arity, from, to)
	a.c.AppendRange(&b.c, from, to)
	a.y.AppendRange(&b.y, from, to)
	a.v.AppendRange(&b.v, from, to)
	a.factor.AppendRange(&b.factor, from, to)
	a.tag.AppendRange(&b.tag, from, to)
	a.n += to - from
}

// MapCoefs replaces the coefficients of slots from, from+1, … by f of
// themselves (Column.Map), MapConsts the constants, and SetTags the tags
// by tags (one per factor).
func (a *Affines) MapCoefs(from int, f func(float64) float64) {
	for j := from; j < len(a.coefs); j++ {
		a.coefs[j].Map(f)
	}
}
func (a *Affines) MapConsts(f func(float64) float64) { a.c.Map(f) }
func (a *Affines) SetTags(tags Column[int32]) {
	if tags.Len() != a.n {
		panic("graph: Affines.SetTags: one tag per factor")
	}
	a.tag = tags
}
func (a *Affines) FactorCol() *Column[int] { return &a.factor }
