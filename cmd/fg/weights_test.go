package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/cmd/fg/internal/present"
	"github.com/fg-infer/fg/internal/datadir"
)

// weightsModel is a probit regression on libsvm data with d weights.
func weightsModel(t *testing.T, d int) string {
	p := filepath.Join(t.TempDir(), "w.fg")
	src := fmt.Sprintf(`model w
data X = libsvm(%q, cols = %d)
data y = libsvm_labels(%q)
latent w: real[cols(X)] ~ normal(0, 1)
for i in 0..len(y) {
  y[i] ~ probit(dot(X[i], w))
}
infer ep as adf { family = factorized, passes = 1 }
infer ep { family = factorized, passes = 5 }
`, datadir.Path("sparse", "sparse_train.svm"), d, datadir.Path("sparse", "sparse_train.svm"))
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type weightsDoc struct {
	Results []struct {
		Label     string
		Variables map[string]struct {
			Shape    []int
			Mean     []float64
			Var      []float64
			Abridged *struct{ Elements int }
		}
	}
}

// TestRunWeightsFile: --weights writes every element of the libsvm weights
// of each result, with the numbers JSON gives (parsed back: equal to the
// last bit), and is an error without libsvm weights.
func TestRunWeightsFile(t *testing.T) {
	model := weightsModel(t, 20)
	path := filepath.Join(t.TempDir(), "weights.csv")
	out, stderr, code := runFG("run", model, "--json", "--weights", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc weightsDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*20 || strings.Join(rows[0], ",") != present.WeightsHeader {
		t.Fatalf("%d rows, header %v; want 41 and %s", len(rows), rows[0], present.WeightsHeader)
	}
	for _, row := range rows[1:] {
		i, _ := strconv.Atoi(row[2])
		m, _ := strconv.ParseFloat(row[3], 64)
		v, _ := strconv.ParseFloat(row[4], 64)
		found := false
		for _, r := range doc.Results {
			if w := r.Variables[row[1]]; r.Label == row[0] && i < len(w.Mean) {
				found = m == w.Mean[i] && v == w.Var[i]
			}
		}
		if !found {
			t.Errorf("row %v differs from the JSON document", row)
		}
	}
	// A model without libsvm weights: an error, and no file.
	none := filepath.Join(t.TempDir(), "none.csv")
	if _, stderr, code := runFG("run", datadir.Path("..", "examples", "clutter.fg"), "--weights", none); code != exitError ||
		!strings.Contains(stderr, "no result has the weights of a libsvm plate") {
		t.Errorf("without libsvm weights: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("--weights left %s: %v", none, err)
	}
}

// TestJSONAbridgesWideWeights: libsvm weights of more than
// present.AbridgedWeights elements are abridged in JSON (their count, no
// arrays), written whole with --all; the features no example touches keep
// the prior N(0, 1) exactly.
func TestJSONAbridgesWideWeights(t *testing.T) {
	d := present.AbridgedWeights + 1
	model := weightsModel(t, d)
	for _, all := range []bool{false, true} {
		args := []string{"run", model, "--json", "--only", "adf"}
		if all {
			args = append(args, "--all")
		}
		out, stderr, code := runFG(args...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !all {
			for _, err := range loadSchema(t).ValidateJSON([]byte(out)) {
				t.Errorf("abridged: %v", err)
			}
		}
		var doc weightsDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		w := doc.Results[0].Variables["w"]
		switch {
		case len(w.Shape) != 1 || w.Shape[0] != d:
			t.Errorf("all = %v: shape %v", all, w.Shape)
		case !all && (w.Abridged == nil || w.Abridged.Elements != d || w.Mean != nil || w.Var != nil || len(out) > 1<<16):
			t.Errorf("abridged: %+v, %d mean, %d bytes", w.Abridged, len(w.Mean), len(out))
		case all && (w.Abridged != nil || len(w.Mean) != d || len(w.Var) != d || w.Mean[d-1] != 0 || w.Var[d-1] != 1):
			t.Errorf("--all: abridged %+v, %d means, last %v ± %v", w.Abridged, len(w.Mean), w.Mean[len(w.Mean)-1], w.Var[len(w.Var)-1])
		}
	}
}

// TestGraphDrawsLibSVMPlates: fg graph draws a libsvm plate, whose sites
// are streamed and are no graph factors, as one box joined to every
// weight, and weights too many to be graph variables (a compact latent of
// 2²⁶ elements) as one node — not an empty graph.
func TestGraphDrawsLibSVMPlates(t *testing.T) {
	for _, d := range []int{20, 1 << 26} {
		out, stderr, code := runFG("graph", weightsModel(t, d))
		if code != exitOK {
			t.Fatalf("d = %d: exit %d: %s", d, code, stderr)
		}
		plate := `label="probit(y[i]) over 300 examples of `
		edges := strings.Count(out, "  s0 -- ")
		switch {
		case strings.Count(out, plate) != 1:
			t.Errorf("d = %d: the plate is not one box:\n%s", d, out)
		case d == 20 && (edges != 20 || !strings.Contains(out, "s0 -- v19;") || !strings.Contains(out, `label="w[19]"`)):
			t.Errorf("d = 20: %d plate edges, want one to each weight:\n%s", edges, out)
		case d > 20 && (edges != 1 || !strings.Contains(out, `c0 [shape=circle, label="w: real[67108864]"]`) || !strings.Contains(out, "s0 -- c0;")):
			t.Errorf("d = 2²⁶: %d plate edges, want one to the node of w:\n%s", edges, out)
		case !strings.HasSuffix(out, "}\n") || strings.Count(out, "}") != 1:
			t.Errorf("d = %d: not one DOT graph:\n%s", d, out)
		}
	}
}

// TestREPLGraphListsLibSVMPlates: the REPL's :graph names the libsvm plate
// of compact weights, which its dump of the graph does not hold.
func TestREPLGraphListsLibSVMPlates(t *testing.T) {
	c := startREPL(t, weightsModel(t, 1<<26))
	c.expect("fg> ")
	c.typeLine(":graph")
	c.expect("latent 0 w: real[67108864]")
	c.expect("libsvm plate on w: probit(y[i]) over 300 examples of ")
	c.expect("fg> ")
	c.typeLine(":quit")
}
