package present

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/fg-infer/fg/infer"
)

// TableOptions control the human-readable report.
type TableOptions struct {
	// All shows every element of long vectors; otherwise at most MaxElements
	// per variable or prediction, with a note saying how many were left out.
	All         bool
	MaxElements int // 0 means DefaultMaxElements
	// Summed names the discrete latents whose states the log evidence sums
	// over without a normalised prior, and LogStates is Σ log K over their
	// elements (compile.Model.SummedStates): the table then says what the
	// log evidence is.
	Summed    []string
	LogStates float64
}

// DefaultMaxElements is how many elements of a vector the table shows
// without --all.
const DefaultMaxElements = 8

func (o TableOptions) limit(n int) int {
	if o.All {
		return n
	}
	m := o.MaxElements
	if m <= 0 {
		m = DefaultMaxElements
	}
	return min(n, m)
}

// WriteTable prints the comparison report: one column per result with its
// status, iterations, time, log evidence and errors against the gold
// standard; then per-variable summaries, relaxed factors, predictions,
// learned hyperparameters and the reasons for any non-converged status.
func WriteTable(w io.Writer, model string, rs []*infer.Result, opt TableOptions) error {
	ew := &errWriter{w: w}
	if model != "" {
		fmt.Fprintf(ew, "model %s\n\n", model)
	}
	if len(rs) == 0 {
		fmt.Fprintln(ew, "no results (the model has no infer line; use --method)")
		return ew.err
	}
	summaryGrid(rs).write(ew, "")
	writeEvidenceNote(ew, rs, opt)
	writeVariables(ew, rs, opt)
	writeRelaxation(ew, rs, opt)
	writePredictions(ew, rs, opt)
	writeLearned(ew, rs)
	writeMessages(ew, rs)
	WriteWarnings(ew, rs)
	return ew.err
}

// writeEvidenceNote says, under the summary, that the log evidence is an
// unnormalised sum over the states of discrete latents without a
// categorical prior, and how to get log p(y) under uniform priors.
func writeEvidenceNote(w io.Writer, rs []*infer.Result, opt TableOptions) {
	if len(opt.Summed) == 0 || !anyResult(rs, func(r *infer.Result) bool { return r.HasEvidence }) {
		return
	}
	fmt.Fprintf(w, "  (log evidence = log Σ Π factors over the states of %s, which have no categorical prior:\n"+
		"   the log partition function; log p(y) under uniform priors on them is log evidence − %s)\n",
		strings.Join(CompactNames(opt.Summed), ", "), num(opt.LogStates))
}

// WriteWarnings prints every result's warnings, one a line:
// "LABEL: POS: warning: MESSAGE" (the REPL uses it too).
func WriteWarnings(w io.Writer, rs []*infer.Result) {
	first := true
	for _, r := range rs {
		for _, x := range r.Warnings {
			if first {
				fmt.Fprintln(w)
				first = false
			}
			fmt.Fprintf(w, "%s: %s\n", r.Label, x)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// errWriter remembers the first write error so the report code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

func summaryGrid(rs []*infer.Result) *grid {
	g := &grid{}
	g.add(row("", rs, func(r *infer.Result) string { return r.Label })...)
	g.add(row("method", rs, func(r *infer.Result) string { return r.Method })...)
	g.add(row("divergence", rs, divergenceName)...)
	g.add(row("status", rs, func(r *infer.Result) string { return r.Status.String() })...)
	g.add(row("iterations", rs, iterations)...)
	g.add(row("time", rs, func(r *infer.Result) string { return seconds(r.Runtime) })...)
	g.add(row("log evidence", rs, logEvidence)...)
	if anyResult(rs, func(r *infer.Result) bool { return r.Skipped > 0 }) {
		g.add(row("skipped updates", rs, func(r *infer.Result) string { return fmt.Sprint(r.Skipped) })...)
	}
	if anyResult(rs, func(r *infer.Result) bool { return len(r.Warnings) > 0 }) {
		g.add(row("warnings", rs, func(r *infer.Result) string { return fmt.Sprint(len(r.Warnings)) })...)
	}
	addSamplerRows(g, rs)
	addErrorRows(g, rs)
	addTestRows(g, rs)
	return g
}

// addSamplerRows adds, when a result comes from a sampler, its smallest
// bulk ESS and largest R-hat over all variables (Stan's diagnostics; JSON
// has them per element).
func addSamplerRows(g *grid, rs []*infer.Result) {
	if !anyResult(rs, func(r *infer.Result) bool { return hasDiagnostics(r) }) {
		return
	}
	g.add(row("bulk ESS (min)", rs, func(r *infer.Result) string {
		if !hasDiagnostics(r) {
			return Dash
		}
		m := math.Inf(1)
		for _, v := range r.Variables.All() {
			for _, e := range v.ESS {
				m = math.Min(m, e)
			}
		}
		return fmt.Sprintf("%.0f", m)
	})...)
	g.add(row("R-hat (max)", rs, func(r *infer.Result) string {
		if !hasDiagnostics(r) {
			return Dash
		}
		m := math.Inf(-1)
		for _, v := range r.Variables.All() {
			for _, x := range v.RHat {
				m = math.Max(m, x)
			}
		}
		return fmt.Sprintf("%.3f", m)
	})...)
}

func hasDiagnostics(r *infer.Result) bool {
	for _, v := range r.Variables.All() {
		if len(v.ESS) > 0 && len(v.RHat) > 0 {
			return true
		}
	}
	return false
}

// addTestRows adds, per scored prediction (fg run --test), the test error
// rate and the mean log predictive probability of each result.
func addTestRows(g *grid, rs []*infer.Result) {
	var names []string
	for _, r := range rs {
		for _, p := range r.Predictions {
			if p.Test != nil {
				names = appendOnce(names, p.Name)
			}
		}
	}
	for _, name := range names {
		score := func(r *infer.Result) *infer.TestScore {
			for _, p := range r.Predictions {
				if p.Name == name {
					return p.Test
				}
			}
			return nil
		}
		g.add(row("test error ("+name+")", rs, func(r *infer.Result) string {
			if s := score(r); s != nil {
				return num(s.ErrorRate)
			}
			return Dash
		})...)
		g.add(row("test log p ("+name+")", rs, func(r *infer.Result) string {
			if s := score(r); s != nil {
				return num(s.MeanLogProb)
			}
			return Dash
		})...)
	}
}

func row(name string, rs []*infer.Result, f func(*infer.Result) string) []string {
	cells := []string{name}
	for _, r := range rs {
		cells = append(cells, f(r))
	}
	return cells
}

func anyResult(rs []*infer.Result, f func(*infer.Result) bool) bool {
	for _, r := range rs {
		if f(r) {
			return true
		}
	}
	return false
}

func divergenceName(r *infer.Result) string {
	if r.Divergence == nil {
		return Dash
	}
	return r.Divergence.String()
}

func iterations(r *infer.Result) string {
	if r.Iterations == 0 && r.Status == infer.Done {
		return Dash
	}
	return fmt.Sprint(r.Iterations)
}

func logEvidence(r *infer.Result) string {
	if !r.HasEvidence {
		return Dash
	}
	if r.ELBO {
		return num(r.LogEvidence) + " (ELBO)"
	}
	return num(r.LogEvidence)
}

// addErrorRows adds the error columns against the gold standard when any
// result carries them; the reference column itself reads "reference".
func addErrorRows(g *grid, rs []*infer.Result) {
	ref, vs := "", ""
	for _, r := range rs {
		if r.Errors != nil {
			ref, vs = r.Errors.Reference, " vs "+r.Errors.Reference
			if n := r.Errors.ReferenceWarnings; n > 0 {
				vs += fmt.Sprintf(" (%s has %d warning%s)", ref, n, plural(n))
			}
			break
		}
	}
	if ref == "" {
		return
	}
	type metric struct {
		name string
		has  func(*infer.Errors) bool
		val  func(*infer.Errors) float64
	}
	ms := []metric{
		{"mean MAE", func(e *infer.Errors) bool { return e.HasMean }, func(e *infer.Errors) float64 { return e.MeanMAE }},
		{"var MAE", func(e *infer.Errors) bool { return e.HasVar }, func(e *infer.Errors) float64 { return e.VarMAE }},
		{"prob MAE", func(e *infer.Errors) bool { return e.HasProb }, func(e *infer.Errors) float64 { return e.ProbMAE }},
		{"|Δ log Z|", func(e *infer.Errors) bool { return e.HasLogZ }, func(e *infer.Errors) float64 { return e.LogZAbs }},
	}
	for _, m := range ms {
		if !anyResult(rs, func(r *infer.Result) bool { return r.Errors != nil && m.has(r.Errors) }) {
			continue
		}
		g.add(row(m.name+vs, rs, func(r *infer.Result) string {
			switch {
			case r.Label == ref:
				return "reference"
			case r.Errors == nil || !m.has(r.Errors):
				return Dash
			}
			return num(m.val(r.Errors))
		})...)
	}
}

// varNames lists variable names in order of first appearance over results.
func varNames(rs []*infer.Result) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rs {
		for i := range r.Variables.Len() {
			if name := r.Variables.Name(i); !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	return names
}

func findVar(r *infer.Result, name string) *infer.Variable {
	if v, ok := r.Variables.Find(name); ok {
		return &v
	}
	return nil
}

// eachVariable calls f for every variable name, in order of first
// appearance over the results, with that variable of each result (the
// first of its name; nil where a result lacks it; vs is reused between
// calls). With one result — one infer line, whose variables have distinct
// names — it walks the result's list, so that a table of many variables (a
// libDAI file has one per graph variable) builds no map of names; with
// several, a map per result keeps it linear.
func eachVariable(rs []*infer.Result, f func(name string, vs []*infer.Variable)) {
	vs := make([]*infer.Variable, len(rs))
	if len(rs) == 1 {
		var cur infer.Variable // one holder: &v of each would be a heap copy a variable
		vs[0] = &cur
		for _, v := range rs[0].Variables.All() {
			cur = v
			f(v.Name, vs)
		}
		return
	}
	byName := make([]map[string]int, len(rs)) // name → 1 + index of its first variable
	for j, r := range rs {
		m := make(map[string]int, r.Variables.Len())
		for i := range r.Variables.Len() {
			if name := r.Variables.Name(i); m[name] == 0 {
				m[name] = i + 1 // 0: absent
			}
		}
		byName[j] = m
	}
	found := make([]infer.Variable, len(rs))
	for _, name := range varNames(rs) {
		for j, r := range rs {
			vs[j] = nil
			if i := byName[j][name]; i > 0 {
				found[j] = r.Variables.At(i - 1)
				vs[j] = &found[j]
			}
		}
		f(name, vs)
	}
}

// writeVariables prints a row per shown element of every variable, in two
// passes over the rows — their widths, then the rows themselves — so that
// a table of 10⁶ rows is written without being held.
func writeVariables(w io.Writer, rs []*infer.Result, opt TableOptions) {
	some := false
	eachVariable(rs, func(string, []*infer.Variable) { some = true })
	if !some {
		return
	}
	fmt.Fprintln(w)
	cells := make([]string, 1+len(rs))
	rows := func(f func([]string)) {
		cells[0] = "variable"
		for j, r := range rs {
			cells[1+j] = r.Label
		}
		f(cells)
		eachVariable(rs, func(name string, vs []*infer.Variable) {
			shape, n, _ := varShape(vs)
			for i := range opt.limit(n) {
				cells[0] = infer.ElementName(name, shape, i)
				for j, v := range vs {
					cells[1+j] = varCell(v, i)
				}
				f(cells)
			}
		})
	}
	var widths []int
	rows(func(c []string) { widths = growWidths(widths, c) })
	bw := bufio.NewWriterSize(w, 1<<16)
	rows(func(c []string) { writeRow(bw, "", c, widths) })
	bw.Flush()
	var notes []string
	eachVariable(rs, func(name string, vs []*infer.Variable) {
		_, n, discrete := varShape(vs)
		if k := opt.limit(n); k < n {
			notes = append(notes, fmt.Sprintf("%s: %d of %d elements shown (--all shows everything)", name, k, n))
		}
		if discrete {
			notes = appendOnce(notes, "discrete variables: P(last state), e.g. P(x = +1); cat(K): P(0)/P(1)/…")
		}
	})
	for _, n := range notes {
		fmt.Fprintf(w, "  (%s)\n", n)
	}
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// varShape returns the shape, element count and kind of a variable from the
// result that reports the most elements of it (a failed run may report
// none); vs holds the variable of each result (nil where absent).
func varShape(vs []*infer.Variable) ([]int, int, bool) {
	var best *infer.Variable
	for _, v := range vs {
		if v != nil && (best == nil || varLen(v) > varLen(best)) {
			best = v
		}
	}
	if best == nil {
		return nil, 0, false
	}
	return best.Shape, varLen(best), best.Discrete
}

func varLen(v *infer.Variable) int {
	if v.Discrete {
		return len(v.Probs)
	}
	return len(v.Mean)
}

// varCell renders element i of a variable: mean ± sd (and the marginal
// with its parameters for a non-Gaussian family, "Beta(6, 5)"), or P(last state) for
// two-state variables, or the state probabilities joined by "/" otherwise.
func varCell(v *infer.Variable, i int) string {
	if v == nil || i >= varLen(v) {
		return Dash
	}
	if !v.Discrete {
		vr := 0.0
		if i < len(v.Var) {
			vr = v.Var[i]
		}
		if i < len(v.Dist) {
			return meanSD(v.Mean[i], vr) + " " + v.Dist[i]
		}
		return meanSD(v.Mean[i], vr)
	}
	p := v.Probs[i]
	if len(p) == 2 {
		return num(p[1])
	}
	parts := make([]string, len(p))
	for j, x := range p {
		parts[j] = num(x)
	}
	return strings.Join(parts, "/")
}

func writeRelaxation(w io.Writer, rs []*infer.Result, opt TableOptions) {
	if !anyResult(rs, func(r *infer.Result) bool { return len(r.Relaxation) > 0 }) {
		return
	}
	fmt.Fprintf(w, "\nrelaxed factors (b ≠ 0, largest first)\n")
	for _, r := range rs {
		if len(r.Relaxation) == 0 {
			continue
		}
		rel := append([]infer.Relaxation(nil), r.Relaxation...)
		sort.SliceStable(rel, func(i, j int) bool { return rel[i].B > rel[j].B })
		fmt.Fprintf(w, "  %s: %d factor(s)\n", r.Label, len(rel))
		g := &grid{}
		k := opt.limit(len(rel))
		for _, x := range rel[:k] {
			g.add(x.Factor, "b = "+num(x.B), x.Pos)
		}
		g.write(w, "    ")
		if k < len(rel) {
			fmt.Fprintf(w, "    (%d of %d shown; --all shows everything)\n", k, len(rel))
		}
	}
}
