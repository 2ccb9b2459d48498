package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ignored are the `--json` fields that differ between any two runs (the
// wall time of a run, the speed of a streamed one) or between any two
// versions (the format's version number); they are not compared.
var ignored = map[string]bool{"version": true, "seconds": true, "examples/s": true}

// agreement is how the outputs of the two binaries compare.
type agreement struct {
	within float64 // largest difference (diff) of the numbers that agree to tol
	fields []fieldDiff
	err    error // an output could not be read
}

// fieldDiff is a field — its path with array indices as [*] — that
// differs by more than the tolerance, or in kind, or in text.
type fieldDiff struct {
	path   string
	count  int     // elements that differ
	max    float64 // largest numeric difference (0 for a structural one)
	detail string  // the first difference, as base → head
}

// diff is the difference of two numbers: absolute up to magnitude 1,
// relative above, |a − b| / max(1, |a|, |b|).
func diff(a, b float64) float64 {
	return math.Abs(a-b) / max(1, math.Abs(a), math.Abs(b))
}

// compareJSON compares two `fg run --json` documents field by field:
// numbers up to tol (diff), everything else exactly, the ignored fields
// not at all. Results are named by their label.
func compareJSON(basePath, headPath string, tol float64) agreement {
	var a agreement
	base, err := readJSON(basePath)
	if err != nil {
		return agreement{err: err}
	}
	head, err := readJSON(headPath)
	if err != nil {
		return agreement{err: err}
	}
	c := comparer{tol: tol, byPath: map[string]*fieldDiff{}}
	c.walk("", base, head)
	a.within = c.within
	for _, p := range c.order {
		a.fields = append(a.fields, *c.byPath[p])
	}
	return a
}

func readJSON(path string) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var v any
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return v, nil
}

// comparer walks two decoded JSON values side by side.
type comparer struct {
	tol    float64
	within float64
	byPath map[string]*fieldDiff
	order  []string
}

func (c *comparer) walk(path string, a, b any) {
	switch a := a.(type) {
	case map[string]any:
		if b, ok := b.(map[string]any); ok {
			c.walkObject(path, a, b)
			return
		}
	case []any:
		if b, ok := b.([]any); ok {
			c.walkArray(path, a, b)
			return
		}
	case float64:
		if b, ok := b.(float64); ok {
			c.number(path, a, b)
			return
		}
	default:
		if a == b {
			return
		}
	}
	c.add(path, 0, brief(a)+" → "+brief(b))
}

func (c *comparer) walkObject(path string, a, b map[string]any) {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if ignored[k] {
			continue
		}
		va, inA := a[k]
		vb, inB := b[k]
		switch {
		case !inA:
			c.add(join(path, k), 0, "only in head")
		case !inB:
			c.add(join(path, k), 0, "only in base")
		default:
			c.walk(join(path, k), va, vb)
		}
	}
}

func (c *comparer) walkArray(path string, a, b []any) {
	if len(a) != len(b) {
		c.add(path, 0, fmt.Sprintf("%d elements → %d", len(a), len(b)))
		return
	}
	for i := range a {
		c.walk(path+"["+c.index(path, i, a[i])+"]", a[i], b[i])
	}
}

// index names element i of an array in a path: a result by its label,
// any other element as *, so that a field's differences are counted
// together.
func (c *comparer) index(path string, i int, v any) string {
	if path == "results" {
		if o, ok := v.(map[string]any); ok {
			if l, ok := o["label"].(string); ok {
				return l
			}
		}
		return strconv.Itoa(i)
	}
	return "*"
}

func (c *comparer) number(path string, a, b float64) {
	if d := diff(a, b); d > c.tol {
		c.add(path, d, fmt.Sprintf("%.17g → %.17g", a, b))
	} else {
		c.within = max(c.within, d)
	}
}

// add records a difference of the field at path (the first one's detail
// is kept).
func (c *comparer) add(path string, d float64, detail string) {
	f := c.byPath[path]
	if f == nil {
		f = &fieldDiff{path: path, detail: detail}
		c.byPath[path] = f
		c.order = append(c.order, path)
	}
	f.count++
	f.max = max(f.max, d)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// brief is a short rendering of a JSON value for a difference's detail.
func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// compareText compares two outputs byte for byte and names the first line
// that differs.
func compareText(basePath, headPath string) agreement {
	a, err := os.ReadFile(basePath)
	if err != nil {
		return agreement{err: err}
	}
	b, err := os.ReadFile(headPath)
	if err != nil {
		return agreement{err: err}
	}
	if bytes.Equal(a, b) {
		return agreement{}
	}
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return agreement{fields: []fieldDiff{{path: "line " + strconv.Itoa(i+1), count: 1,
				detail: strconv.Quote(x) + " → " + strconv.Quote(y)}}}
		}
	}
	return agreement{}
}

// summary is the agreement in a table cell: "identical", "same to 3e-15",
// or the fields that differ and how close the rest is.
func (a agreement) summary() string {
	rest := "identical"
	if a.within > 0 {
		rest = fmt.Sprintf("same to %.1g", a.within)
	}
	switch {
	case a.err != nil:
		return "not compared"
	case len(a.fields) == 0:
		return rest
	}
	return "**differs**: " + fieldNames(a.fields, 3) + "; the rest " + rest
}

// fieldNames names the differing fields without their result and indices
// (results[ep].trace[*] is trace), at most max of them.
func fieldNames(fs []fieldDiff, max int) string {
	var names []string
	for _, f := range fs {
		n := f.path
		if strings.HasPrefix(n, "results[") {
			if _, after, ok := strings.Cut(n, "]."); ok {
				n = after
			}
		}
		n = strings.ReplaceAll(n, "[*]", "")
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
	}
	return strings.Join(names, ", ")
}
