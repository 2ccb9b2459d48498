package present

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/cmd/fg/internal/jsonschema"
	"github.com/fg-infer/fg/infer"
)

// loadSchema reads docs/result.schema.json from the repository.
func loadSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestJSONMatchesSchema(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, "toy", fixture()); err != nil {
		t.Fatal(err)
	}
	for _, err := range loadSchema(t).ValidateJSON(b.Bytes()) {
		t.Error(err)
	}
	if s := b.String(); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
		t.Errorf("non-finite number emitted:\n%s", s)
	}
}

func TestJSONEmptyMatchesSchema(t *testing.T) {
	var b bytes.Buffer
	WriteJSON(&b, "", nil)
	for _, err := range loadSchema(t).ValidateJSON(b.Bytes()) {
		t.Error(err)
	}
}

func TestJSONValues(t *testing.T) {
	var b bytes.Buffer
	WriteJSON(&b, "toy", fixture())
	var doc struct {
		Results []struct {
			Label       string
			LogEvidence *float64 `json:"log_evidence"`
			Divergence  *string
			Trace       []*float64
			Variables   map[string]struct {
				Shape     []int
				Mean, Var []*float64
				Probs     [][]float64
			}
			Relaxation map[string]float64
			Errors     *struct {
				Reference string
				MeanMAE   *float64 `json:"mean_mae"`
				ProbMAE   *float64 `json:"prob_mae"`
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	rs := doc.Results
	if len(rs) != 5 || rs[1].Label != "ep" {
		t.Fatalf("results: %+v", rs)
	}
	if rs[0].LogEvidence == nil || *rs[0].LogEvidence != -3.25 {
		t.Errorf("exact log_evidence = %v", rs[0].LogEvidence)
	}
	if rs[4].LogEvidence != nil || rs[4].Divergence != nil {
		t.Errorf("mcmc log_evidence/divergence should be null")
	}
	if rs[3].LogEvidence != nil || rs[3].Trace[1] != nil || rs[3].Trace[2] != nil || *rs[3].Trace[0] != 1 {
		t.Errorf("non-finite numbers must be null: %+v", rs[3])
	}
	if w := rs[1].Variables["w"]; *w.Mean[0] != 0.75 || *w.Var[1] != 0.16 || w.Shape[0] != 2 {
		t.Errorf("ep w = %+v", w)
	}
	if x := rs[4].Variables["x"]; len(x.Probs) != 12 || !(math.Abs(x.Probs[11][1]-12.0/13) <= 1e-15) {
		t.Errorf("mcmc x probs = %v", x.Probs)
	}
	if rs[2].Relaxation["step(y[4])"] != 1.9 {
		t.Errorf("relaxation = %v", rs[2].Relaxation)
	}
	if e := rs[1].Errors; e == nil || e.Reference != "exact" || *e.MeanMAE != 0.25 || e.ProbMAE != nil {
		t.Errorf("errors = %+v", e)
	}
}

func TestFloatRoundTrip(t *testing.T) {
	for _, x := range []float64{0.1, 1e-300, -2.5e17, math.Pi} {
		b, _ := Float(x).MarshalJSON()
		var y float64
		if err := json.Unmarshal(b, &y); err != nil || y != x {
			t.Errorf("%v -> %s -> %v", x, b, y)
		}
	}
}

// TestJSONStreamed: WriteDocument, which streams the variables one at a
// time, writes what json.Marshal of the whole document and indentJSON
// write; the variables object holds, for each name, the later variable of
// that name, keys sorted as encoding/json sorts a map's (HTML-escaped),
// checked against a map[string]JSONVariable encoded by encoding/json.
func TestJSONStreamed(t *testing.T) {
	rs := fixture()
	big := make([][]float64, 2*probsChunk+3) // streamed in three pieces
	for i := range big {
		x := float64(i) / float64(len(big))
		big[i] = []float64{1 - x, x}
	}
	rs[0].Variables.Append(
		infer.Variable{Name: "z<&>", Discrete: true, States: []string{"-1", "+1"}, Probs: [][]float64{{0.25, 0.75}}},
		infer.Variable{Name: "a", Shape: []int{1}, Mean: []float64{1}, Var: []float64{2}},
		infer.Variable{Name: "w", Shape: []int{1}, Mean: []float64{3}, Var: []float64{4}},
		infer.Variable{Name: "big", Shape: []int{2*probsChunk + 3}, Discrete: true, States: []string{"-1", "+1"}, Probs: big})
	rs = append(rs, &infer.Result{Method: "bp", Label: "empty", Status: infer.Failed})
	d := NewDocument("toy", rs)
	d.SummedStates = &JSONSummedStates{Latents: []string{"z"}, LogStates: 0.5}
	var got, want bytes.Buffer
	if err := WriteDocument(&got, d); err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	indentJSON(&want, compact)
	if got.String() != want.String() {
		t.Errorf("streamed:\n%s\nwhole:\n%s", got.String(), want.String())
	}
	var doc struct {
		Results []struct {
			Variables map[string]struct{ Probs [][]float64 }
		}
	}
	if err := json.Unmarshal(got.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if p := doc.Results[0].Variables["big"].Probs; len(p) != len(big) || p[probsChunk][1] != big[probsChunk][1] || p[len(p)-1][0] != big[len(big)-1][0] {
		t.Errorf("the streamed probabilities read back as %d elements", len(p))
	}
	m := map[string]JSONVariable{}
	for _, v := range rs[0].Variables.All() {
		m[v.Name] = jsonVariable(v, false)
	}
	ref, _ := json.Marshal(m)
	enc, _ := json.Marshal(d.Results[0].Variables)
	if string(enc) != string(ref) {
		t.Errorf("variables %s, want %s", enc, ref)
	}
}
