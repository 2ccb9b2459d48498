package present

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 4 results × 2 elements of w, 3 prediction rows, 12 × 2 spin rows, 3 cat rows.
	if want := 1 + 8 + 3 + 24 + 3; len(recs) != want {
		t.Fatalf("%d rows, want %d", len(recs), want)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		if len(r) != len(CSVHeader) {
			t.Fatalf("ragged row %v", r)
		}
		if r[col["label"]] == "ep" && r[col["element"]] == "w[1]" {
			if r[col["mean"]] != "-1" || r[col["var"]] != "0.16" || r[col["sd"]] != "0.4" {
				t.Errorf("ep w[1] row %v", r)
			}
		}
		if r[col["label"]] == "ep_alpha" && r[col["element"]] == "w[0]" && (r[col["mean"]] != "" || r[col["sd"]] != "") {
			t.Errorf("non-finite values must be empty cells: %v", r)
		}
		if r[col["element"]] == "x[11]" && r[col["state"]] == "+1" {
			if p, _ := strconv.ParseFloat(r[col["prob"]], 64); p != 12.0/13 {
				t.Errorf("x[11] row %v", r)
			}
		}
		if r[col["kind"]] == "prediction" && r[col["element"]] == "p[0]" && r[col["prob"]] != "0.8" {
			t.Errorf("prediction row %v", r)
		}
	}
}

// TestCSVTestScores: a prediction scored against a test file adds one
// `test` row per score, as JSON's `test` object.
func TestCSVTestScores(t *testing.T) {
	r := &infer.Result{Label: "ep", Method: "ep", Predictions: []infer.Prediction{{Name: "p", Shape: []int{2},
		Mean: []float64{0.1, -0.2}, Var: []float64{1, 1}, Prob: []float64{0.6, 0.4}, Test: &infer.TestScore{N: 2, ErrorRate: 0.5, MeanLogProb: -0.7}}}}
	var b bytes.Buffer
	if err := WriteCSV(&b, []*infer.Result{r}); err != nil {
		t.Fatal(err)
	}
	want := "ep,ep,test,p,n,,2,,,,,,\nep,ep,test,p,error_rate,,0.5,,,,,,\nep,ep,test,p,mean_log_prob,,-0.7,,,,,,\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("CSV:\n%s\nwant it to end with\n%s", b.String(), want)
	}
}
