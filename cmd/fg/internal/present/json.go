package present

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/infer"
)

// SchemaVersion is the "version" field of the JSON document; it changes only
// when a field changes meaning or disappears (adding fields keeps it).
const SchemaVersion = 2

// Float is a float64 that encodes NaN and ±Inf as JSON null, so the output
// is always valid JSON and never claims a number that is not one.
type Float float64

// MarshalJSON encodes finite values with the shortest exact representation
// and non-finite values as null.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// Floats is an array of numbers encoded in one pass (non-finite as null);
// nil encodes as null, so required arrays use nonNil.
type Floats []float64

// MarshalJSON writes [x1,x2,...] with the shortest exact representations.
func (fs Floats) MarshalJSON() ([]byte, error) {
	if fs == nil {
		return []byte("null"), nil
	}
	return fs.appendJSON(make([]byte, 0, 2+len(fs)*20)), nil
}

// appendJSON appends the array to b.
func (fs Floats) appendJSON(b []byte) []byte {
	b = append(b, '[')
	for i, x := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		}
	}
	return append(b, ']')
}

func floats(xs []float64) Floats { return Floats(xs) }

// Document is the top-level JSON object written by `fg run --json`.
type Document struct {
	Version int          `json:"version"`
	Model   string       `json:"model"`
	Results []JSONResult `json:"results"`
	// SummedStates, when the model has discrete latents without a
	// categorical prior, says that log_evidence sums over their states
	// (docs/json.md).
	SummedStates *JSONSummedStates `json:"summed_states,omitempty"`
}

// JSONSummedStates names the discrete latents whose states log_evidence
// sums over without a normalised prior (compile.Model.SummedStates):
// log p(y) under uniform priors on them is log_evidence − log_states.
// Latents is a compact list (CompactNames): a run of numbered latents is
// one range "x0…x999999".
type JSONSummedStates struct {
	Latents   []string `json:"latents"`
	LogStates Float    `json:"log_states"`
}

// NewSummedStates returns the summed-states object of latents (the full
// list, compile.Model.SummedStates) and log Σ log K.
func NewSummedStates(latents []string, logStates float64) *JSONSummedStates {
	return &JSONSummedStates{Latents: CompactNames(latents), LogStates: Float(logStates)}
}

// JSONResult is one infer line's outcome; docs/json.md documents every field.
type JSONResult struct {
	Method      string                    `json:"method"`
	Label       string                    `json:"label"`
	Divergence  *string                   `json:"divergence"`
	Options     map[string]string         `json:"options"`
	Status      string                    `json:"status"`
	Message     string                    `json:"message,omitempty"`
	Iterations  int                       `json:"iterations"`
	Updates     int                       `json:"updates"`
	Skipped     int                       `json:"skipped"`
	Seconds     Float                     `json:"seconds"`
	LogEvidence *Float                    `json:"log_evidence"`
	ELBO        bool                      `json:"elbo,omitempty"`
	Trace       Floats                    `json:"trace"`
	Variables   JSONVariables             `json:"variables"`
	Relaxation  map[string]Float          `json:"relaxation"`
	Predictions map[string]JSONPrediction `json:"predictions"`
	Learned     map[string]JSONLearned    `json:"learned"`
	Errors      *JSONErrors               `json:"errors"`
	Warnings    []JSONWarning             `json:"warnings"`
}

// JSONWarning is a run-time caveat of a result (infer.Warning): pos is the
// file:line:col of the infer line ("" when unknown).
type JSONWarning struct {
	Pos     string `json:"pos"`
	Message string `json:"message"`
}

// JSONVariables is a result's posterior marginals, encoded as an object
// keyed by variable name — sorted, as encoding/json writes a map, and of
// two variables with one name the later — one variable at a time, so that
// WriteDocument streams 10⁶ variables without holding their encoding or a
// JSONVariable each.
type JSONVariables struct {
	vars infer.Variables
	stub bool // WriteDocument's placeholder (stubJSON)
	all  bool // write abridged weights in full (Document.ShowAll)
}

// AbridgedWeights is the number of elements above which streamed weights
// (infer.Variable.Streamed: a libsvm plate's) are abridged in JSON unless
// asked for in full: 2²⁶ weights would be a document of gigabytes, most of
// them features no example touched. `fg run --weights FILE` writes them.
const AbridgedWeights = 1 << 20

// JSONAbridged stands for the mean and var arrays of abridged weights.
type JSONAbridged struct {
	Elements int `json:"elements"`
}

// ShowAll makes the document write every element of abridged weights
// (fg run --json --all).
func (d *Document) ShowAll() {
	for k := range d.Results {
		d.Results[k].Variables.all = true
	}
}

// stubJSON is what a placeholder JSONVariables encodes to: a string with a
// NUL, which no other value of the document encodes to unescaped (a string
// holding it encodes its quotes as \"), so that WriteDocument finds where
// to stream the variables.
const stubJSON = `"\u0000"`

// writeSpliced writes enc, a compact encoding holding the member
// "key": stubJSON once, to b with what stream writes in place of the
// placeholder.
func writeSpliced(b *bytes.Buffer, enc []byte, key string, stream func() error) error {
	member := `"` + key + `":`
	at := bytes.Index(enc, []byte(member+stubJSON))
	if at < 0 {
		return fmt.Errorf("json: the placeholder of %s is missing", key)
	}
	at += len(member)
	b.Write(enc[:at])
	if err := stream(); err != nil {
		return err
	}
	b.Write(enc[at+len(stubJSON):])
	return nil
}

// MarshalJSON encodes the object whole.
func (v JSONVariables) MarshalJSON() ([]byte, error) {
	if v.stub {
		return []byte(stubJSON), nil
	}
	var b bytes.Buffer
	err := v.encode(&b, func() error { return nil })
	return b.Bytes(), err
}

// encode appends the object to b, calling flush after each variable.
func (v JSONVariables) encode(b *bytes.Buffer, flush func() error) error {
	n := v.vars.Len()
	order := make([]int32, 0, n)
	for i := range n {
		order = append(order, int32(i))
	}
	// By name, the later of equal names first; then keep each name's first.
	slices.SortStableFunc(order, func(i, j int32) int {
		if c := strings.Compare(v.vars.Name(int(i)), v.vars.Name(int(j))); c != 0 {
			return c
		}
		return cmp.Compare(j, i)
	})
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(true)
	b.WriteByte('{')
	for k, i := range order {
		name := v.vars.Name(int(i))
		if k > 0 && v.vars.Name(int(order[k-1])) == name {
			continue
		}
		if k > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(name); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		jv := jsonVariable(v.vars.At(int(i)), v.all)
		probs := jv.Probs
		if probs != nil && len(probs.probs) > probsChunk {
			jv.Probs = &JSONProbs{stub: true}
		}
		start := b.Len()
		if err := enc.Encode(jv); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1)
		if jv.Probs != probs { // a long list: streamed in place of the placeholder
			enc := bytes.Clone(b.Bytes()[start:])
			b.Truncate(start)
			if err := writeSpliced(b, enc, "probs", func() error { return probs.encode(b, flush) }); err != nil {
				return err
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// JSONProbs is a discrete variable's probabilities, one array of its
// states' probabilities per element ([[0.25, 0.75], ...]), encoded an
// element at a time: WriteDocument streams a long list (a latent of 10⁶
// spins) in pieces of probsChunk elements.
type JSONProbs struct {
	probs [][]float64
	stub  bool // JSONVariables.encode's placeholder (stubJSON)
}

// probsChunk is how many elements of a long list of probabilities are
// written at a time.
const probsChunk = 4096

// MarshalJSON encodes the list whole.
func (p *JSONProbs) MarshalJSON() ([]byte, error) {
	if p.stub {
		return []byte(stubJSON), nil
	}
	var b bytes.Buffer
	err := p.encode(&b, func() error { return nil })
	return b.Bytes(), err
}

// encode appends the list to b, calling flush after every probsChunk
// elements.
func (p *JSONProbs) encode(b *bytes.Buffer, flush func() error) error {
	var buf []byte
	buf = append(buf, '[')
	for i, x := range p.probs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = nonNil(floats(x)).appendJSON(buf)
		if (i+1)%probsChunk == 0 {
			b.Write(buf)
			buf = buf[:0]
			if err := flush(); err != nil {
				return err
			}
		}
	}
	b.Write(append(buf, ']'))
	return nil
}

// JSONVariable is a posterior marginal: continuous variables carry mean and
// var, discrete ones states and probs; all arrays are flattened row-major
// over shape. Sampling methods add Monte Carlo diagnostics.
type JSONVariable struct {
	Shape   []int      `json:"shape"`
	Mean    Floats     `json:"mean,omitempty"`
	Var     Floats     `json:"var,omitempty"`
	Family  string     `json:"family,omitempty"`
	Dist    []string   `json:"dist,omitempty"`
	States  []string   `json:"states,omitempty"`
	Probs   *JSONProbs `json:"probs,omitempty"`
	MeanSE  Floats     `json:"mean_se,omitempty"`
	VarSE   Floats     `json:"var_se,omitempty"`
	ProbsSE []Floats   `json:"probs_se,omitempty"`
	ESS     Floats     `json:"ess,omitempty"`
	RHat    Floats     `json:"rhat,omitempty"`
	// Abridged stands for mean and var of streamed weights of more than
	// AbridgedWeights elements (absent when they are written).
	Abridged *JSONAbridged `json:"abridged,omitempty"`
}

// JSONPrediction is a predict quantity at new inputs.
type JSONPrediction struct {
	Shape []int     `json:"shape"`
	Mean  Floats    `json:"mean"`
	Var   Floats    `json:"var"`
	Prob  Floats    `json:"prob,omitempty"`
	MeanY Floats    `json:"mean_y,omitempty"`
	Test  *JSONTest `json:"test,omitempty"`
}

// JSONTest scores a prediction against the labels of `fg run --test PATH`.
type JSONTest struct {
	N           int   `json:"n"`
	ErrorRate   Float `json:"error_rate"`
	MeanLogProb Float `json:"mean_log_prob"`
}

// JSONLearned is one hyperparameter found by evidence maximisation.
type JSONLearned struct {
	Initial Float `json:"initial"`
	Value   Float `json:"value"`
}

// JSONErrors are the error columns against the gold standard; a metric the
// reference does not define is null.
type JSONErrors struct {
	Reference string `json:"reference"`
	// ReferenceWarnings counts the gold standard's warnings: when it is
	// not 0, the reference itself is in doubt.
	ReferenceWarnings int    `json:"reference_warnings"`
	MeanMAE           *Float `json:"mean_mae"`
	VarMAE            *Float `json:"var_mae"`
	ProbMAE           *Float `json:"prob_mae"`
	LogZAbs           *Float `json:"logz_abs"`
}

// WriteJSON writes the results as one indented JSON document (arrays of
// numbers on one line each). The indented text is streamed to w as it is
// made, not built whole beside the compact encoding.
func WriteJSON(w io.Writer, model string, rs []*infer.Result) error {
	return WriteDocument(w, NewDocument(model, rs))
}

// WriteDocument writes a JSON document (NewDocument, with any model-level
// fields set) in fg's layout, as json.Marshal and indentJSON would, but
// streamed: the results' variables are encoded and written one at a time.
func WriteDocument(w io.Writer, d Document) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var in indenter
	var b bytes.Buffer
	flush := func() error {
		in.write(bw, b.Bytes())
		b.Reset()
		return nil
	}
	head, err := json.Marshal(struct {
		Version int    `json:"version"`
		Model   string `json:"model"`
	}{d.Version, d.Model})
	if err != nil {
		return err
	}
	b.Write(head[:len(head)-1])
	b.WriteString(`,"results":[`)
	for k, r := range d.Results {
		if k > 0 {
			b.WriteByte(',')
		}
		vars := r.Variables
		r.Variables = JSONVariables{stub: true}
		enc, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := writeSpliced(&b, enc, "variables", func() error { return vars.encode(&b, flush) }); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	if d.SummedStates != nil {
		s, err := json.Marshal(d.SummedStates)
		if err != nil {
			return err
		}
		b.WriteString(`,"summed_states":`)
		b.Write(s)
	}
	b.WriteByte('}')
	flush()
	bw.WriteByte('\n')
	return bw.Flush()
}

// NewDocument converts results to the JSON document.
func NewDocument(model string, rs []*infer.Result) Document {
	d := Document{Version: SchemaVersion, Model: model, Results: []JSONResult{}}
	for _, r := range rs {
		d.Results = append(d.Results, jsonResult(r))
	}
	return d
}

func jsonResult(r *infer.Result) JSONResult {
	j := JSONResult{
		Method: r.Method, Label: r.Label, Options: r.Options, Status: r.Status.String(),
		Message: r.Message, Iterations: r.Iterations, Updates: r.Updates, Skipped: r.Skipped,
		Seconds: Float(r.Runtime.Seconds()), Trace: floats(r.Trace),
		Variables: JSONVariables{vars: r.Variables}, Relaxation: map[string]Float{},
		Predictions: map[string]JSONPrediction{}, Learned: map[string]JSONLearned{},
		Errors: jsonErrors(r.Errors), Warnings: []JSONWarning{},
	}
	for _, w := range r.Warnings {
		j.Warnings = append(j.Warnings, JSONWarning{Pos: w.Pos, Message: w.Message})
	}
	if j.Options == nil {
		j.Options = map[string]string{}
	}
	if j.Trace == nil {
		j.Trace = Floats{}
	}
	if r.Divergence != nil {
		s := r.Divergence.String()
		j.Divergence = &s
	}
	if r.HasEvidence {
		j.LogEvidence = optFloat(true, r.LogEvidence)
		j.ELBO = r.ELBO
	}
	for _, x := range r.Relaxation {
		j.Relaxation[uniqueKey(j.Relaxation, x.Factor)] = Float(x.B)
	}
	for _, p := range r.Predictions {
		j.Predictions[p.Name] = JSONPrediction{Shape: shape(p.Shape), Mean: nonNil(floats(p.Mean)), Var: nonNil(floats(p.Var)), Prob: floats(p.Prob), MeanY: floats(p.MeanY), Test: jsonTest(p.Test)}
	}
	for _, l := range r.Learned {
		j.Learned[l.Name] = JSONLearned{Initial: Float(l.Initial), Value: Float(l.Value)}
	}
	return j
}

// uniqueKey returns k, or k#2, k#3, ... if k is taken (two factors with the
// same label must not overwrite each other).
func uniqueKey[V any](m map[string]V, k string) string {
	if _, ok := m[k]; !ok {
		return k
	}
	for i := 2; ; i++ {
		c := k + "#" + strconv.Itoa(i)
		if _, ok := m[c]; !ok {
			return c
		}
	}
}

func shape(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func nonNil(xs Floats) Floats {
	if xs == nil {
		return Floats{}
	}
	return xs
}

func optFloat(ok bool, x float64) *Float {
	if !ok {
		return nil
	}
	f := Float(x)
	return &f
}

// jsonVariable converts v; streamed weights of more than AbridgedWeights
// elements keep only their shape and count unless all is set.
func jsonVariable(v infer.Variable, all bool) JSONVariable {
	j := JSONVariable{Shape: shape(v.Shape), MeanSE: floats(v.MeanSE), VarSE: floats(v.VarSE),
		ESS: floats(v.ESS), RHat: floats(v.RHat)}
	if v.Streamed && !all && len(v.Mean) > AbridgedWeights {
		j.Abridged = &JSONAbridged{Elements: len(v.Mean)}
		return j
	}
	if !v.Discrete {
		j.Mean, j.Var = nonNil(floats(v.Mean)), nonNil(floats(v.Var))
		j.Family, j.Dist = v.Family, v.Dist
		return j
	}
	j.States = v.States
	if j.States == nil {
		j.States = []string{}
	}
	if len(v.Probs) > 0 {
		j.Probs = &JSONProbs{probs: v.Probs}
	}
	for _, p := range v.ProbsSE {
		j.ProbsSE = append(j.ProbsSE, nonNil(floats(p)))
	}
	return j
}

func jsonErrors(e *infer.Errors) *JSONErrors {
	if e == nil {
		return nil
	}
	return &JSONErrors{
		Reference:         e.Reference,
		ReferenceWarnings: e.ReferenceWarnings,
		MeanMAE:           optFloat(e.HasMean, e.MeanMAE),
		VarMAE:            optFloat(e.HasVar, e.VarMAE),
		ProbMAE:           optFloat(e.HasProb, e.ProbMAE),
		LogZAbs:           optFloat(e.HasLogZ, e.LogZAbs),
	}
}

func jsonTest(t *infer.TestScore) *JSONTest {
	if t == nil {
		return nil
	}
	return &JSONTest{N: t.N, ErrorRate: Float(t.ErrorRate), MeanLogProb: Float(t.MeanLogProb)}
}
