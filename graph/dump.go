package graph

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Dump writes a deterministic text rendering of g for golden tests: one line
// per latent, per scalar variable and per factor (kind, label, variables by
// id and name, parameters sorted by name), followed by the factor's table if
// it has one. Numbers use the shortest representation that round-trips, so
// two graphs dump identically iff they hold the same values.
//
//	latent 0 x: spin[3] first=0
//	var 0 x[0] spin card=2
//	factor 0 ising "ising(x[0], x[1])" vars=[0 1] (x[0], x[1]) params={J=0.5}
//	  table 0.6065306597126334 1.6487212707001282 1.6487212707001282 0.6065306597126334
func Dump(w io.Writer, g *Graph) error { return DumpFactors(w, g, g) }

// DumpFactors is Dump with the factors of fl, a model's list of its
// factors over the variables of g (compile.Model.Factors).
func DumpFactors(w io.Writer, g *Graph, fl FactorList) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "graph latents=%d vars=%d factors=%d\n", len(g.Latents), len(g.Vars), fl.NumFactors())
	for i := range g.Latents {
		l := &g.Latents[i]
		fmt.Fprintf(bw, "latent %d %s: %s%s first=%d\n", i, l.Name, typeName(l.Domain, l.Card), shapeString(l.Shape), l.First)
	}
	for i, v := range g.Vars {
		fmt.Fprintf(bw, "var %d %s %s card=%d\n", i, g.VarName(i), v.Domain, v.Card)
	}
	factors := func(yield func(Factor, []Param) bool) {
		for _, f := range fl.LabelledFactors() {
			if !yield(f, nil) {
				return
			}
		}
	}
	if pl, ok := fl.(ParamList); ok {
		factors = pl.LabelledFactorParams()
	}
	i := 0
	for f, params := range factors {
		dumpFactor(bw, g, i, &f, params)
		i++
	}
	return bw.Flush()
}

// Dump is the method form of the package function Dump.
func (g *Graph) Dump(w io.Writer) error { return Dump(w, g) }

func dumpFactor(bw *bufio.Writer, g *Graph, i int, f *Factor, params []Param) {
	ids := make([]string, len(f.Vars))
	names := make([]string, len(f.Vars))
	for j, v := range f.Vars {
		ids[j] = strconv.Itoa(v)
		names[j] = "?"
		if v >= 0 && v < len(g.Vars) {
			names[j] = g.VarName(v)
		}
	}
	fmt.Fprintf(bw, "factor %d %s %q vars=[%s] (%s) params={%s}\n", i, f.Kind.Name(), f.Label,
		strings.Join(ids, " "), strings.Join(names, ", "), paramString(f, params))
	if f.Table != nil {
		bw.WriteString("  table")
		for _, t := range f.Table {
			bw.WriteString(" " + fmtFloat(t))
		}
		bw.WriteString("\n")
	}
}

func typeName(d Domain, card int) string {
	if d == Cat {
		return fmt.Sprintf("cat(%d)", card)
	}
	return d.String()
}

func shapeString(shape []int) string {
	if len(shape) == 0 {
		return ""
	}
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// paramString lists f's parameters (its Scalar, and params: the ones its
// list knows, left as they are) sorted by name.
func paramString(f *Factor, params []Param) string {
	params = slices.Clone(params)
	if f.ScalarName != "" {
		params = append(params, Param{f.ScalarName, f.Scalar})
	}
	slices.SortStableFunc(params, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	s := make([]string, len(params))
	for i, p := range params {
		s[i] = p.Name + "=" + fmtFloat(p.Value)
	}
	return strings.Join(s, ", ")
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
