package graph

import (
	"math"
	"slices"
	"testing"
)

// TestAffinesRewrite: Rewrite sets the numbers it is given and keeps every
// other field of every factor, bit for bit, on a chain's conditionals (one
// rule per column) followed by factors of other arities; a constant
// variance set on every step stays one rule.
func TestAffinesRewrite(t *testing.T) {
	var a Affines
	var want []Affine
	add := func(f Affine) {
		a.Add(f)
		want = append(want, Affine{Vars: slices.Clone(f.Vars), Coefs: slices.Clone(f.Coefs), Const: f.Const, Y: f.Y, Var: f.Var, Factor: f.Factor, Tag: f.Tag})
	}
	const n = 1000
	for k := 1; k <= n; k++ {
		add(Affine{Vars: []int{k, k - 1}, Coefs: []float64{1, -0.5}, Const: -0.1, Var: 0.3, Factor: k, Tag: 1})
	}
	add(Affine{Vars: []int{3}, Coefs: []float64{2}, Const: math.Copysign(0, -1), Y: 1.5, Var: 2, Factor: n + 1, Tag: 2})
	add(Affine{Vars: []int{4, 5, 6}, Coefs: []float64{1, 2, 3}, Y: math.Inf(1), Factor: n + 2, Tag: 3})
	before := a.Bytes()
	a.Rewrite(func(k int, coefs []float64, c, v *float64) {
		if k < n {
			coefs[1], *c, *v = -0.7, -0.2, 0.05
			want[k].Coefs[1], want[k].Const, want[k].Var = -0.7, -0.2, 0.05
		}
		if k == n+1 {
			*v = 4
			want[k].Var = 4
		}
	})
	if a.Len() != len(want) {
		t.Fatalf("%d factors, want %d", a.Len(), len(want))
	}
	for k, w := range want {
		got := a.At(k, nil, nil)
		if !slices.Equal(got.Vars, w.Vars) || !slices.Equal(got.Coefs, w.Coefs) || math.Float64bits(got.Const) != math.Float64bits(w.Const) ||
			math.Float64bits(got.Y) != math.Float64bits(w.Y) || got.Var != w.Var || got.Factor != w.Factor || got.Tag != w.Tag {
			t.Fatalf("factor %d: %+v, want %+v", k, got, w)
		}
	}
	if after := a.Bytes(); after > before {
		t.Errorf("the columns grew from %d to %d bytes: the rules were not kept", before, after)
	}
}
