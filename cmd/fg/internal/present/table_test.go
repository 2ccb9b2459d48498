package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

func TestTableContents(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, "toy", fixture(), TableOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"model toy",
		"converged", "diverged", "done",
		"relaxed_kl(c = 20)",
		"-3.25", "—", // exact's evidence; mcmc has none
		"mean MAE vs exact", "reference", "0.025",
		"|Δ log Z| vs exact",
		"skipped updates",
		"w[0]", "0.5 ± 0.2", "0.75 ± 0.3",
		"x: 8 of 12 elements shown (--all shows everything)",
		"0.2/0.3/0.5",
		"step(y[4])", "b = 1.9", "toy.fg:9:3",
		"p[0]", "0.8",
		"eps", "0.2 → 0.125",
		"ep_alpha: diverged: cavity variance non-positive",
		"bulk ESS (min)", "900", "R-hat (max)", "1.001",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The largest b comes first.
	if strings.Index(out, "step(y[4])") > strings.Index(out, "step(y[1])") {
		t.Errorf("relaxed factors not sorted by b:\n%s", out)
	}
	if strings.Contains(out, "x[9]") {
		t.Errorf("long vector not abbreviated:\n%s", out)
	}
}

func TestTableAll(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, "", fixture(), TableOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "x[11]") || strings.Contains(out, "elements shown") {
		t.Errorf("--all should show every element:\n%s", out)
	}
}

func TestTableColumnsAligned(t *testing.T) {
	var b bytes.Buffer
	WriteTable(&b, "", fixture()[:3], TableOptions{})
	lines := strings.Split(b.String(), "\n")
	// Header row and the status row: the column of "ep" starts where "converged" starts.
	hdr, st := lines[0], ""
	for _, l := range lines {
		if strings.HasPrefix(l, "status") {
			st = l
		}
	}
	col := func(s, word string) int { return len([]rune(s[:strings.Index(s, word)])) }
	if col(hdr, "ep ") != col(st, "converged") {
		t.Errorf("columns misaligned:\n%s\n%s", hdr, st)
	}
}

func TestNum(t *testing.T) {
	cases := map[float64]string{0: "0", 1: "1", 0.5: "0.5", -3.25: "-3.25", 1234.5678: "1235",
		0.000123: "1.230e-04", 2e7: "2.000e+07", 0.1 + 0.2: "0.3"}
	for x, want := range cases {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestElementName(t *testing.T) {
	if got := infer.ElementName("X", []int{2, 3}, 5); got != "X[1, 2]" {
		t.Errorf("got %q", got)
	}
	if got := infer.ElementName("s", nil, 0); got != "s" {
		t.Errorf("got %q", got)
	}
}

// TestTableVariableFromAnyResult: a variable is shown when the first result
// reports it without values (a failed run) and a later one has them.
func TestTableVariableFromAnyResult(t *testing.T) {
	failed := &infer.Result{Method: "ep", Label: "a", Status: infer.Failed,
		Variables: infer.NewVariables([]infer.Variable{{Name: "f", Shape: []int{2}}}...)}
	ok := &infer.Result{Method: "ep", Label: "b", Status: infer.Converged,
		Variables: infer.NewVariables([]infer.Variable{{Name: "f", Shape: []int{2}, Mean: []float64{1, 2}, Var: []float64{1, 4}}}...)}
	var buf bytes.Buffer
	if err := WriteTable(&buf, "m", []*infer.Result{failed, ok}, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "f[1]") || !strings.Contains(out, "2 ± 2") {
		t.Fatalf("table:\n%s", out)
	}
}
