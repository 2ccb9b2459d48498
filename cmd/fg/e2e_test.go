package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// These tests run the real pipeline (parser, compile, engines) on
// testdata/toy.fg: five points, so each run takes milliseconds.

func TestRunTable(t *testing.T) {
	out, stderr, code := runFG("run", "testdata/toy.fg")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"model gpc_toy", "ep", "mcmc", "status", "w[0]", "±", "mean MAE vs mcmc"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSONMatchesSchema(t *testing.T) {
	cases := [][]string{
		{"testdata/toy.fg", "--method", "ep { divergence = alpha(0.5) }"}, // continuous, gold standard
		{"testdata/ising.fg"}, // discrete: bp, relaxed bp, exact, Gibbs (standard errors, ESS, R-hat)
	}
	for _, c := range cases {
		out, stderr, code := runFG(append([]string{"run", "--json"}, c...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
		for _, err := range loadSchema(t).ValidateJSON([]byte(out)) {
			t.Errorf("%s: %v", c[0], err)
		}
		if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Errorf("%s: non-finite number in JSON", c[0])
		}
	}
	out, _, _ := runFG(append([]string{"run", "--json"}, cases[0]...)...)
	if !strings.Contains(out, `"alpha(0.5)"`) {
		t.Errorf("--method line missing from the results:\n%s", out)
	}
}

func TestRunCSV(t *testing.T) {
	out, stderr, code := runFG("run", "testdata/toy.fg", "--csv", "--only", "ep")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1][0] != "ep" || recs[1][4] != "w[0]" || recs[2][4] != "w[1]" {
		t.Errorf("csv:\n%s", out)
	}
}

func TestRunTestFlag(t *testing.T) {
	out, stderr, code := runFG("run", "testdata/toy.fg", "--check")
	if code != exitOK || !strings.Contains(out, "PASS") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	// A --set that makes an expect fail gives exit 1.
	_, _, code = runFG("run", "testdata/toy.fg", "--set", "nosuchparam=1")
	if code != exitError {
		t.Errorf("unknown --set param: exit %d, want 1", code)
	}
}

func TestRunPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toy.png")
	if d := os.Getenv("FG_PLOT_DIR"); d != "" {
		path = filepath.Join(d, "toy_cli.png")
	}
	if _, stderr, code := runFG("run", "testdata/toy.fg", "--plot", path); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	out, _, code := runFG("check", "testdata/toy.fg")
	if code != exitOK || !strings.Contains(out, "toy.fg: ok") {
		t.Errorf("check toy: %d %q", code, out)
	}
	_, stderr, code := runFG("check", "testdata/bad.fg")
	if code != exitError || !strings.Contains(stderr, "bad.fg:2:") || !strings.Contains(stderr, "normal") {
		t.Errorf("check bad: exit %d stderr %q", code, stderr)
	}
}

func TestTestCommand(t *testing.T) {
	out, _, code := runFG("test", "testdata/toy.fg")
	if code != exitOK || !strings.Contains(out, "PASS testdata/toy.fg:") || !strings.Contains(out, "ok   testdata/toy.fg") {
		t.Errorf("test: %d\n%s", code, out)
	}
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/toy.fg")
	os.WriteFile(filepath.Join(dir, "fail.fg"), append(src, []byte("expect iterations > 100000 for ep\n")...), 0o644)
	out, _, code = runFG("test", dir)
	if code != exitError || !strings.Contains(out, "FAIL") || !strings.Contains(out, "iterations = ") {
		t.Errorf("failing test: %d\n%s", code, out)
	}
}

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.fg")
	os.WriteFile(p, []byte("model   m\nparam a=1\n"), 0o644)
	out, _, code := runFG("fmt", p)
	if code != exitOK || !strings.Contains(out, "param a = 1") {
		t.Errorf("fmt: %d %q", code, out)
	}
	if _, _, code := runFG("fmt", "-w", p); code != exitOK {
		t.Fatal("fmt -w failed")
	}
	data, _ := os.ReadFile(p)
	if string(data) != out {
		t.Errorf("fmt -w wrote %q, fmt printed %q", data, out)
	}
}

func TestGraphDOT(t *testing.T) {
	out, stderr, code := runFG("graph", "testdata/toy.fg")
	if code != exitOK || !strings.Contains(out, "graph") || !strings.Contains(out, "w[0]") {
		t.Errorf("graph: %d %q %q", code, out, stderr)
	}
}

// TestRunFactorGraphOutputs: a factor-graph model (eight schools: a latent
// scalar mean mu and a vector theta) in the table, JSON (valid against the
// schema, mu of shape []) and CSV (mu's element named mu).
func TestRunFactorGraphOutputs(t *testing.T) {
	const model = "../../examples/eight_schools.fg"
	out, stderr, code := runFG("run", model, "--only", "ep")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"\nmu ", "theta[7]", "converged"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, stderr, code = runFG("run", model, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, err := range loadSchema(t).ValidateJSON([]byte(out)) {
		t.Errorf("json: %v", err)
	}
	if !strings.Contains(out, `"mu": {`) || !strings.Contains(out, `"shape": []`) {
		t.Errorf("json lacks the scalar mu of shape []:\n%s", out)
	}
	out, stderr, code = runFG("run", model, "--csv", "--only", "ep")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 10 || recs[1][3] != "mu" || recs[1][4] != "mu" || recs[2][4] != "theta[0]" {
		t.Errorf("csv (%v):\n%s", err, out)
	}
}

// TestFmtKeepsLiteralLines: fg fmt keeps the line breaks of a literal
// written over several lines (lang/parser's golden file) and is idempotent.
func TestFmtKeepsLiteralLines(t *testing.T) {
	const src = "../../lang/parser/testdata/multiline_lists"
	out, stderr, code := runFG("fmt", src+".fg")
	want, err := os.ReadFile(src + ".golden")
	if code != exitOK || err != nil || out != string(want) {
		t.Fatalf("fmt: exit %d %s %v:\n%s", code, stderr, err, out)
	}
	p := filepath.Join(t.TempDir(), "m.fg")
	os.WriteFile(p, []byte(out), 0o644)
	if again, _, _ := runFG("fmt", p); again != out {
		t.Errorf("fmt is not idempotent:\n%s", again)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 60 && !strings.HasPrefix(line, "//") {
			t.Errorf("a joined line: %q", line)
		}
	}
}

// TestCSVCarriesJSONPredictions: every number of JSON's predictions is in
// the CSV too — the predictive mean and variance, and the expected count
// mean_y of a poisson_log prediction — equal as printed (both exact).
func TestCSVCarriesJSONPredictions(t *testing.T) {
	const model = "../../examples/poisson_regression.fg"
	js, stderr, code := runFG("run", model, "--json", "--only", "ep", "--only", "exact")
	if code != exitOK {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	cs, stderr, code := runFG("run", model, "--csv", "--only", "ep", "--only", "exact")
	if code != exitOK {
		t.Fatalf("csv: exit %d: %s", code, stderr)
	}
	var doc struct {
		Results []struct {
			Label       string `json:"label"`
			Predictions map[string]struct {
				Mean  []float64 `json:"mean"`
				Var   []float64 `json:"var"`
				MeanY []float64 `json:"mean_y"`
			} `json:"predictions"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(cs)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	rows := map[string][]string{}
	for _, r := range recs[1:] {
		if r[col["kind"]] == "prediction" {
			rows[r[col["label"]]+" "+r[col["element"]]] = r
		}
	}
	n := 0
	for _, res := range doc.Results {
		for name, p := range res.Predictions {
			if len(p.MeanY) == 0 {
				t.Errorf("%s %s: JSON has no mean_y", res.Label, name)
			}
			for i := range p.Mean {
				r := rows[fmt.Sprintf("%s %s[%d]", res.Label, name, i)]
				if r == nil {
					t.Errorf("%s %s[%d]: no CSV row", res.Label, name, i)
					continue
				}
				for _, c := range []struct {
					col string
					v   float64
				}{{"mean", p.Mean[i]}, {"var", p.Var[i]}, {"mean_y", p.MeanY[i]}} {
					if got, err := strconv.ParseFloat(r[col[c.col]], 64); err != nil || got != c.v {
						t.Errorf("%s %s[%d] %s: CSV %q, JSON %v", res.Label, name, i, c.col, r[col[c.col]], c.v)
					}
				}
				n++
			}
		}
	}
	if n != 6 {
		t.Errorf("%d prediction elements compared, want 3 for each of ep and exact", n)
	}
}

// TestSummedStatesNote: the log evidence of a model whose discrete latent
// has no categorical prior is the log partition function; the table and
// JSON say so and give Σ log K (a uniform_spin latent of 3 elements with a
// zero field: log Z = 3 log 2 exactly, log p(y) = 0).
func TestSummedStatesNote(t *testing.T) {
	p := filepath.Join(t.TempDir(), "z.fg")
	os.WriteFile(p, []byte("model z\nlatent x: spin[3] ~ uniform_spin()\nfor i in 0..3 { factor field(x[i], 0) }\ninfer exact\n"), 0o644)
	out, stderr, code := runFG("run", p)
	if code != exitOK || !strings.Contains(out, "states of x, which have no categorical prior") ||
		!strings.Contains(out, "log evidence − 2.079") || !strings.Contains(out, "log evidence  2.079") {
		t.Errorf("table: exit %d %s\n%s", code, stderr, out)
	}
	js, _, _ := runFG("run", p, "--json")
	var doc struct {
		Results []struct {
			LogEvidence float64 `json:"log_evidence"`
		} `json:"results"`
		SummedStates struct {
			Latents   []string `json:"latents"`
			LogStates float64  `json:"log_states"`
		} `json:"summed_states"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	want := 3 * math.Log(2)
	if len(doc.SummedStates.Latents) != 1 || !(math.Abs(doc.SummedStates.LogStates-want) <= 1e-15) ||
		!(math.Abs(doc.Results[0].LogEvidence-want) <= 1e-12) {
		t.Errorf("json: %+v", doc)
	}
	os.WriteFile(p, []byte("model z\nlatent x: cat(2)[3] ~ categorical([0.5, 0.5])\nfor i in 0..3 { factor table(x[i], [1, 1]) }\ninfer exact\n"), 0o644)
	if out, _, _ := runFG("run", p); strings.Contains(out, "no categorical prior") {
		t.Errorf("a categorical prior is normalised:\n%s", out)
	}
}
