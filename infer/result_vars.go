package infer

import (
	"fmt"
	"iter"
	"strings"
)

// Variables is a result's posterior summaries, one per latent in the
// model's order. Most results hold them as a list of Variable values; a
// result over many latents holds them as a VarTable — arrays that make
// each latent's Variable only when it is read (a libDAI file has one
// latent per graph variable: 10⁶ Variable values would take 330 B each
// beside marginals of 16 B). Every reader (the presenters, expect, the Go
// API) goes through Len, At, Name, Find and All, so that both forms read
// alike and print the same bytes.
type Variables struct {
	parts []varPart
	n     int
}

// varPart is a run of a result's variables: a list or a table.
type varPart struct {
	list []Variable
	tab  VarTable
}

func (p varPart) len() int {
	if p.tab != nil {
		return p.tab.Len()
	}
	return len(p.list)
}

// VarTable holds the summaries of many latents in arrays and makes latent
// i's Variable on demand; Name(i) is its name without making it.
type VarTable interface {
	Len() int
	Name(i int) string
	Variable(i int) Variable
}

// NewVariables returns the variables vs as a list.
func NewVariables(vs ...Variable) Variables {
	var out Variables
	out.Append(vs...)
	return out
}

// Append adds variables at the end.
func (vs *Variables) Append(v ...Variable) {
	if len(v) == 0 {
		return
	}
	if k := len(vs.parts) - 1; k >= 0 && vs.parts[k].tab == nil {
		vs.parts[k].list = append(vs.parts[k].list, v...)
	} else {
		vs.parts = append(vs.parts, varPart{list: v})
	}
	vs.n += len(v)
}

// AppendTable adds the latents of table t at the end.
func (vs *Variables) AppendTable(t VarTable) {
	if t.Len() == 0 {
		return
	}
	vs.parts = append(vs.parts, varPart{tab: t})
	vs.n += t.Len()
}

// AppendVariables adds the variables of o at the end.
func (vs *Variables) AppendVariables(o Variables) {
	for _, p := range o.parts {
		if p.tab != nil {
			vs.AppendTable(p.tab)
		} else {
			vs.Append(p.list...)
		}
	}
}

// Len is the number of variables.
func (vs Variables) Len() int { return vs.n }

// locate returns the part holding variable i and i's index in it.
func (vs Variables) locate(i int) (varPart, int) {
	if i < 0 || i >= vs.n {
		panic("infer: variable index out of range")
	}
	for _, p := range vs.parts {
		if n := p.len(); i >= n {
			i -= n
		} else {
			return p, i
		}
	}
	panic("unreachable")
}

// At returns variable i (0 ≤ i < Len). A table's variable is made anew:
// its slices share the table's arrays.
func (vs Variables) At(i int) Variable {
	p, k := vs.locate(i)
	if p.tab != nil {
		return p.tab.Variable(k)
	}
	return p.list[k]
}

// Name is variable i's name.
func (vs Variables) Name(i int) string {
	p, k := vs.locate(i)
	if p.tab != nil {
		return p.tab.Name(k)
	}
	return p.list[k].Name
}

// All yields every variable with its index, in order.
func (vs Variables) All() iter.Seq2[int, Variable] {
	return func(yield func(int, Variable) bool) {
		i := 0
		for _, p := range vs.parts {
			for k := range p.len() {
				var v Variable
				if p.tab != nil {
					v = p.tab.Variable(k)
				} else {
					v = p.list[k]
				}
				if !yield(i, v) {
					return
				}
				i++
			}
		}
	}
}

// Index returns the index of the first variable called name, or −1. It
// reads names only, making no Variable.
func (vs Variables) Index(name string) int {
	i := 0
	for _, p := range vs.parts {
		if p.tab != nil {
			for k := range p.tab.Len() {
				if p.tab.Name(k) == name {
					return i + k
				}
			}
		} else {
			for k := range p.list {
				if p.list[k].Name == name {
					return i + k
				}
			}
		}
		i += p.len()
	}
	return -1
}

// Find returns the first variable called name.
func (vs Variables) Find(name string) (Variable, bool) {
	if i := vs.Index(name); i >= 0 {
		return vs.At(i), true
	}
	return Variable{}, false
}

// Names lists the variables' names in order.
func (vs Variables) Names() []string {
	out := make([]string, vs.n)
	for i := range out {
		out[i] = vs.Name(i)
	}
	return out
}

// ListedNames is how many names NameList writes before it elides the rest.
const ListedNames = 50

// NameList joins the names for a message ("w, x"): the first ListedNames,
// then how many there are in all, so that a message about a result of 10⁶
// latents stays a line.
func (vs Variables) NameList() string {
	n := min(vs.n, ListedNames)
	names := make([]string, n)
	for i := range names {
		names[i] = vs.Name(i)
	}
	s := strings.Join(names, ", ")
	if vs.n > n {
		s += fmt.Sprintf(", … (%d in all)", vs.n)
	}
	return s
}
