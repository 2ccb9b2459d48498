package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The table: ranges over the runs, ratios of the medians (head / base),
// a failed side and the notes under the table.
func TestWriteTable(t *testing.T) {
	s := func(cpu float64, mib int64, load float64) sample {
		return sample{cpu: time.Duration(cpu * float64(time.Second)), peak: mib << 20, load: load}
	}
	rs := []caseResult{
		{name: "chain", base: []sample{s(4.2, 1164, 6.6), s(4.19, 1165, 6.8), s(4.3, 1165, 6.7)},
			head: []sample{s(0.875, 248, 6.7), s(0.892, 250, 6.7), s(0.88, 249, 6.9)}},
		{name: "fitc", base: []sample{s(0.0241, 18, 5.4)}, headErr: errors.New("exit status 3: f: diverged"),
			agree: agreement{within: 2e-10, fields: []fieldDiff{{path: "results[ep].trace[*]", count: 7, max: 0.19, detail: "18.6 → 23.1"}}}},
	}
	var b strings.Builder
	writeTable(&b, rs)
	want := `| case | base CPU s | head CPU s | CPU head/base | base peak MiB | head peak MiB | peak head/base | load | output |
|---|---|---|---|---|---|---|---|---|
| chain | 4.19–4.3 | 0.875–0.892 | 0.21 | 1164–1165 | 248–250 | 0.21 | 6.6–6.9 | identical |
| fitc | 0.0241 | failed | — | 18 | failed | — | 5.4 | **differs**: trace; the rest same to 2e-10 |

- fitc, head: exit status 3: f: diverged
- fitc: ` + "`results[ep].trace[*]`" + ` differs in 7 places, by up to 0.19 (first: 18.6 → 23.1)
`
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// Two --json documents: the wall time and the version are not compared,
// numbers agree to tol (absolute below 1, relative above), results are
// named by label, and a field of one side only is a difference.
func TestCompareJSON(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	head := filepath.Join(dir, "head.json")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(base, `{"version": 1, "results": [{"label": "ep", "seconds": 0.5, "log_evidence": -1000,
		"trace": [3, 0.1], "variables": {"f": {"mean": [0.25, 1e-12]}}}]}`)
	write(head, `{"version": 2, "results": [{"label": "ep", "seconds": 0.2, "log_evidence": -1000.0000001,
		"trace": [4, 0.1], "variables": {"f": {"mean": [0.25, 2e-12]}}, "summed_states": {}}]}`)
	a := compareJSON(base, head, 1e-9)
	if a.err != nil {
		t.Fatal(a.err)
	}
	if len(a.fields) != 2 || a.fields[0].path != "results[ep].summed_states" || a.fields[1].path != "results[ep].trace[*]" {
		t.Fatalf("fields %+v", a.fields)
	}
	if f := a.fields[1]; f.count != 1 || f.max != 0.25 {
		t.Errorf("trace: %+v, want one difference of 1/4", f)
	}
	// log Z: 1e-7 / 1000 relative; the mean near 0: 1e-12 absolute
	if want := 1e-10; a.within < want*(1-1e-6) || a.within > want*(1+1e-6) {
		t.Errorf("within %g, want %g", a.within, want)
	}
	if got, want := a.summary(), "**differs**: summed_states, trace; the rest same to 1e-10"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := compareJSON(base, base, 0).summary(); got != "identical" {
		t.Errorf("a document against itself: %q", got)
	}
}

// fg check's text output: the first differing line is named.
func TestCompareText(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if os.WriteFile(a, []byte("ok\nx: 10 factors\n"), 0o644) != nil || os.WriteFile(b, []byte("ok\nx: 11 factors\n"), 0o644) != nil {
		t.Fatal("cannot write the outputs")
	}
	got := compareText(a, b)
	if len(got.fields) != 1 || got.fields[0].path != "line 2" {
		t.Fatalf("%+v", got)
	}
	if s := compareText(a, a).summary(); s != "identical" {
		t.Errorf("same file: %q", s)
	}
}
