package present

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/fg-infer/fg/infer"
)

// CSVHeader is the header row of `fg run --csv`.
var CSVHeader = []string{"label", "method", "kind", "name", "element", "index", "mean", "var", "sd", "state", "prob", "mean_y", "dist"}

// WriteCSV writes one row per variable element and result (for discrete
// variables one row per element and state), then one row per prediction
// element (with E[y*] in mean_y for count likelihoods) and, for a
// prediction scored against a test file, one `test` row per score — what
// JSON carries. Unavailable and non-finite values are empty cells.
func WriteCSV(w io.Writer, rs []*infer.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range rs {
		for _, v := range r.Variables.All() {
			for _, rec := range variableRows(r, v) {
				cw.Write(rec)
			}
		}
		for _, p := range r.Predictions {
			for _, rec := range predictionRows(r, p) {
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func variableRows(r *infer.Result, v infer.Variable) [][]string {
	var out [][]string
	if !v.Discrete {
		for i, m := range v.Mean {
			vr := at(v.Var, i)
			dist := ""
			if i < len(v.Dist) {
				dist = v.Dist[i]
			}
			out = append(out, []string{r.Label, r.Method, "variable", v.Name, infer.ElementName(v.Name, v.Shape, i),
				strconv.Itoa(i), cell(m), cell(vr), cell(math.Sqrt(vr)), "", "", "", dist})
		}
		return out
	}
	for i, p := range v.Probs {
		for s, x := range p {
			st := strconv.Itoa(s)
			if s < len(v.States) {
				st = v.States[s]
			}
			out = append(out, []string{r.Label, r.Method, "variable", v.Name, infer.ElementName(v.Name, v.Shape, i),
				strconv.Itoa(i), "", "", "", st, cell(x), "", ""})
		}
	}
	return out
}

func predictionRows(r *infer.Result, p infer.Prediction) [][]string {
	var out [][]string
	for i, m := range p.Mean {
		vr := at(p.Var, i)
		prob, meanY := "", ""
		if p.Prob != nil {
			prob = cell(at(p.Prob, i))
		}
		if p.MeanY != nil {
			meanY = cell(at(p.MeanY, i))
		}
		out = append(out, []string{r.Label, r.Method, "prediction", p.Name, infer.ElementName(p.Name, p.Shape, i),
			strconv.Itoa(i), cell(m), cell(vr), cell(math.Sqrt(vr)), "", prob, meanY, ""})
	}
	if t := p.Test; t != nil {
		for _, s := range []struct {
			name string
			v    float64
		}{{"n", float64(t.N)}, {"error_rate", t.ErrorRate}, {"mean_log_prob", t.MeanLogProb}} {
			out = append(out, []string{r.Label, r.Method, "test", p.Name, s.name, "", cell(s.v), "", "", "", "", "", ""})
		}
	}
	return out
}

// at returns xs[i], or NaN (rendered empty) when xs is too short.
func at(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return math.NaN()
}

// cell renders a number exactly (shortest round-trip form), empty when non-finite.
func cell(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
