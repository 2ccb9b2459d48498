package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/datadir"
)

// TestRunLibDAIMatchesReference runs a libDAI file through the whole CLI
// (format detection, --method, JSON) and compares BP's log Z and marginals
// with libDAI's own output (data/reference/libdai, BP SEQFIX, tol 1e-9).
func TestRunLibDAIMatchesReference(t *testing.T) {
	model := datadir.Path("reference", "libdai", "ising_full10_seed4.fg")
	refZ, refP := readLibDAITSV(t, datadir.Path("reference", "libdai", "ising_full10_seed4.bp_seqfix.tsv"))
	if len(refP) != 10 || math.IsNaN(refZ) {
		t.Fatalf("reference not read: logZ %v, %d marginals", refZ, len(refP))
	}
	out, stderr, code := runFG("run", model, "--method", "bp { tol = 1e-12 }", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Results []struct {
			Label       string
			LogEvidence float64 `json:"log_evidence"`
			Variables   map[string]struct{ Probs [][]float64 }
		}
		SummedStates struct {
			Latents   []string `json:"latents"`
			LogStates float64  `json:"log_states"`
		} `json:"summed_states"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 1 || doc.Results[0].Label != "bp" {
		t.Fatalf("--method should replace the default lines: %+v", doc.Results)
	}
	// Every variable's states are summed over: the ten latents x0 … x9 are
	// one range, log Σ log K = 10 log 2.
	if ss := doc.SummedStates; len(ss.Latents) != 1 || ss.Latents[0] != "x0…x9" || !(math.Abs(ss.LogStates-10*math.Log(2)) <= 1e-12) {
		t.Errorf("summed_states %+v, want latents [x0…x9] and log_states 10 log 2", ss)
	}
	if table, _, _ := runFG("run", model, "--method", "bp { tol = 1e-12 }"); !strings.Contains(table, "over the states of x0…x9, which have no categorical prior") {
		t.Errorf("the table's note does not name the range x0…x9:\n%s", table)
	}
	r := doc.Results[0]
	if !(math.Abs(r.LogEvidence-refZ) <= 1e-6) {
		t.Errorf("log Z = %.10g, libDAI %.10g", r.LogEvidence, refZ)
	}
	for label, p := range refP {
		v, ok := r.Variables["x"+label]
		if !ok || !(math.Abs(v.Probs[0][1]-p) <= 1e-6) {
			t.Errorf("x%s: P(state 1) = %v, libDAI %v", label, v.Probs, p)
		}
	}
}

// readLibDAITSV reads logZ and P(state 1) per variable label.
func readLibDAITSV(t *testing.T, path string) (float64, map[string]float64) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logZ, probs := math.NaN(), map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 2 && fs[0] == "logZ":
			logZ, _ = strconv.ParseFloat(fs[1], 64)
		case len(fs) == 4 && fs[0] == "var":
			probs[fs[1]], _ = strconv.ParseFloat(fs[3], 64)
		}
	}
	return logZ, probs
}

// TestREPLShowsLibDAILatent: the REPL's :show reads one latent of a libDAI
// file's results (a table over its latents) with the value fg run prints.
func TestREPLShowsLibDAILatent(t *testing.T) {
	model := datadir.Path("reference", "libdai", "ising_full10_seed4.fg")
	table, _, _ := runFG("run", model, "--only", "bp")
	var row string
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "x3 ") {
			row = l
		}
	}
	if row == "" {
		t.Fatalf("fg run prints no row for x3:\n%s", table)
	}
	c := startREPL(t, model)
	c.expect("fg> ")
	c.typeLine(":run bp")
	c.expect("fg> ")
	c.typeLine(":show x3")
	c.expect("variable  bp")
	c.expect(row)
	c.expect("fg> ")
	c.typeLine(":quit")
}
