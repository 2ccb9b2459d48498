package infer

import (
	"fmt"
	"reflect"
	"testing"
)

// spinTable is a VarTable of n scalar spins named s0, s1, … whose
// probability of +1 is i/n.
type spinTable struct{ n int }

func (t spinTable) Len() int          { return t.n }
func (t spinTable) Name(i int) string { return fmt.Sprint("s", i) }
func (t spinTable) Variable(i int) Variable {
	p := float64(i) / float64(t.n)
	return Variable{Name: t.Name(i), Discrete: true, States: []string{"-1", "+1"}, Probs: [][]float64{{1 - p, p}}}
}

// TestVariablesReadAlike checks that a result's variables read the same
// through Len, At, Name, All, Index and Find whether they are held as a
// list or as a table, in the order they were appended.
func TestVariablesReadAlike(t *testing.T) {
	w := Variable{Name: "w", Shape: []int{2}, Mean: []float64{1, 2}, Var: []float64{3, 4}}
	tab := spinTable{3}
	var vs Variables
	vs.Append(w)
	vs.AppendTable(tab)
	vs.AppendTable(spinTable{0}) // empty: adds nothing
	vs.Append(Variable{Name: "s1", Mean: []float64{9}}, Variable{Name: "z"})
	want := []Variable{w, tab.Variable(0), tab.Variable(1), tab.Variable(2), {Name: "s1", Mean: []float64{9}}, {Name: "z"}}
	list := NewVariables(want...)
	for _, got := range []Variables{vs, list} {
		if got.Len() != len(want) {
			t.Fatalf("Len %d, want %d", got.Len(), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got.At(i), want[i]) || got.Name(i) != want[i].Name {
				t.Errorf("At(%d) = %+v (name %q), want %+v", i, got.At(i), got.Name(i), want[i])
			}
		}
		n := 0
		for i, v := range got.All() {
			if i != n || !reflect.DeepEqual(v, want[i]) {
				t.Errorf("All: %d %+v, want %d %+v", i, v, n, want[n])
			}
			n++
		}
		if n != len(want) {
			t.Errorf("All yielded %d variables, want %d", n, len(want))
		}
		// The first of two variables called s1 is the table's.
		if i := got.Index("s1"); i != 2 {
			t.Errorf("Index(s1) = %d, want 2", i)
		}
		if v, ok := got.Find("z"); !ok || v.Name != "z" {
			t.Errorf("Find(z) = %+v, %v", v, ok)
		}
		if _, ok := got.Find("nope"); ok || got.Index("nope") != -1 {
			t.Error("Find(nope) found a variable")
		}
	}
	var both Variables
	both.AppendVariables(vs)
	both.AppendVariables(list)
	if both.Len() != 2*len(want) || both.Name(len(want)+3) != "s2" || !reflect.DeepEqual(both.At(3), want[3]) {
		t.Errorf("AppendVariables: %d variables, names %v", both.Len(), both.Names())
	}
}

// TestNameListElides checks that a message lists at most ListedNames names
// and then says how many there are.
func TestNameListElides(t *testing.T) {
	var small, big Variables
	small.AppendTable(spinTable{2})
	big.AppendTable(spinTable{ListedNames + 7})
	if got := small.NameList(); got != "s0, s1" {
		t.Errorf("NameList = %q", got)
	}
	got := big.NameList()
	if want := fmt.Sprintf(", s%d, … (%d in all)", ListedNames-1, ListedNames+7); len(got) < len(want) || got[len(got)-len(want):] != want {
		t.Errorf("NameList = …%q, want …%q", got[max(0, len(got)-40):], want)
	}
}
