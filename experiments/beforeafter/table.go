package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// caseResult is one case measured on both sides.
type caseResult struct {
	name             string
	base, head       []sample
	baseErr, headErr error
	agree            agreement
}

// writeTable writes the results as a markdown table — per case the range
// of CPU times and peak resident sets over the runs of each side and the
// ratios of their medians (head / base) — followed by what differs or
// failed.
func writeTable(w io.Writer, rs []caseResult) {
	fmt.Fprintln(w, "| case | base CPU s | head CPU s | CPU head/base | base peak MiB | head peak MiB | peak head/base | load | output |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		cpuB, cpuH := column(r.base, cpuSeconds), column(r.head, cpuSeconds)
		memB, memH := column(r.base, peakMiB), column(r.head, peakMiB)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name,
			span(cpuB, seconds, r.baseErr), span(cpuH, seconds, r.headErr), ratio(cpuB, cpuH),
			span(memB, mib, r.baseErr), span(memH, mib, r.headErr), ratio(memB, memH),
			span(append(column(r.base, loadOf), column(r.head, loadOf)...), load, nil), r.agree.summary())
	}
	for _, r := range rs {
		writeNotes(w, r)
	}
}

// writeNotes lists a case's failures and differing fields under the table.
func writeNotes(w io.Writer, r caseResult) {
	for _, side := range []struct {
		name string
		err  error
	}{{"base", r.baseErr}, {"head", r.headErr}} {
		if side.err != nil {
			fmt.Fprintf(w, "\n- %s, %s: %v", r.name, side.name, side.err)
		}
	}
	if r.agree.err != nil {
		fmt.Fprintf(w, "\n- %s: outputs not compared: %v", r.name, r.agree.err)
	}
	for _, f := range r.agree.fields {
		fmt.Fprintf(w, "\n- %s: `%s` differs", r.name, f.path)
		if f.count > 1 {
			fmt.Fprintf(w, " in %d places", f.count)
		}
		if f.max > 0 {
			fmt.Fprintf(w, ", by up to %.2g", f.max)
		}
		fmt.Fprintf(w, " (first: %s)", f.detail)
	}
	if r.baseErr != nil || r.headErr != nil || r.agree.err != nil || len(r.agree.fields) > 0 {
		fmt.Fprintln(w)
	}
}

func cpuSeconds(s sample) float64 { return s.cpu.Seconds() }
func peakMiB(s sample) float64    { return float64(s.peak) / (1 << 20) }
func loadOf(s sample) float64     { return s.load }

// column is one measure of every sample.
func column(ss []sample, f func(sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

// span is "min–max" of xs (one value alone when they are equal), "failed"
// after an error and "—" without values.
func span(xs []float64, format func(float64) string, err error) string {
	switch {
	case err != nil:
		return "failed"
	case len(xs) == 0:
		return "—"
	}
	lo, hi := format(slices.Min(xs)), format(slices.Max(xs))
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// ratio is median(head) / median(base), "—" when a side has no values.
func ratio(base, head []float64) string {
	if len(base) == 0 || len(head) == 0 || median(base) == 0 {
		return "—"
	}
	return strconv.FormatFloat(median(head)/median(base), 'f', 2, 64)
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// seconds has three significant digits, without an exponent.
func seconds(x float64) string {
	if x >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func mib(x float64) string  { return strconv.FormatFloat(x, 'f', 0, 64) }
func load(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
