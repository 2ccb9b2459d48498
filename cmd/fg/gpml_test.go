package main

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

// TestRunGPMLMatchesReference runs GP classification through the CLI
// (csv data, --set, predict, JSON) on toy2d and compares with GPML 4.2's
// infEP (data/reference/gpml/toy2d_se_probit): log Z_EP = −nlZ to
// 1e-6 relative, training-latent moments and test p(y=+1) to 1e-5.
func TestRunGPMLMatchesReference(t *testing.T) {
	dir := datadir.Path("reference", "gpml", "toy2d_se_probit")
	out, stderr, code := runFG("run", "testdata/gpc_se_probit.fg", "--set", "dir="+strconv.Quote(dir), "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Results []struct {
			LogEvidence float64 `json:"log_evidence"`
			Variables   map[string]struct{ Mean, Var []float64 }
			Predictions map[string]struct{ Prob []float64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Results[0]
	const nlZ = 18.479878877658741 // GPML, reference/README.md
	if rel := math.Abs(r.LogEvidence+nlZ) / nlZ; rel > 1e-6 {
		t.Errorf("log Z = %.12g, GPML −nlZ = %.12g (rel %.2g)", r.LogEvidence, -nlZ, rel)
	}
	lat := readCSVColumns(t, dir+"/train_latent.csv")
	f := r.Variables["f"]
	for i := range lat["mu_f"] {
		if !(math.Abs(f.Mean[i]-lat["mu_f"][i]) <= 1e-5) || !(math.Abs(f.Var[i]-lat["var_f"][i]) <= 1e-5) {
			t.Errorf("f[%d] = %g, %g; GPML %g, %g", i, f.Mean[i], f.Var[i], lat["mu_f"][i], lat["var_f"][i])
		}
	}
	pred := readCSVColumns(t, dir+"/test_pred.csv")
	p := r.Predictions["ptest"].Prob
	if len(p) != len(pred["p_plus"]) {
		t.Fatalf("%d predictions, GPML %d", len(p), len(pred["p_plus"]))
	}
	for i, want := range pred["p_plus"] {
		if !(math.Abs(p[i]-want) <= 1e-5) {
			t.Errorf("ptest[%d] = %g, GPML %g", i, p[i], want)
		}
	}
}

// readCSVColumns reads a numeric CSV with a header into named columns.
func readCSVColumns(t *testing.T, path string) map[string][]float64 {
	cols, err := refdata.Columns(path)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// TestRunLearnMatchesGPML: `learn` through the CLI finds GPML's optimum
// (reference/gpml/toy2d_se_probit_opt100: hyp.cov 1.52457, 1.19728,
// nlZ 14.7756681) and reports it in the JSON "learned" field.
func TestRunLearnMatchesGPML(t *testing.T) {
	dir := datadir.Path("reference", "gpml", "toy2d_se_probit")
	out, stderr, code := runFG("run", "testdata/gpc_learn.fg", "--set", "dir="+strconv.Quote(dir), "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Results []struct {
			LogEvidence float64                                     `json:"log_evidence"`
			Learned     map[string]struct{ Initial, Value float64 } `json:"learned"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Results[0]
	const nlZ = 14.775668054551385
	if !(math.Abs(r.LogEvidence+nlZ) <= 1e-5) {
		t.Errorf("log Z at the optimum = %.10g, GPML %.10g", r.LogEvidence, -nlZ)
	}
	for name, want := range map[string]float64{"log_ell": 1.5245651980809514, "log_sf": 1.1972831963745378} {
		if got := r.Learned[name]; got.Initial != 0 || !(math.Abs(got.Value-want) <= 1e-3) {
			t.Errorf("%s = %+v, GPML %v", name, got, want)
		}
	}
}

// TestRunTestFileScoresLikeGPML: `--test PATH` reads the predict inputs from
// PATH and scores p(y = +1) against its label column; on toy2d the error
// rate and mean log predictive probability equal GPML's test_err and
// test_mean_log_pred (summary.tsv, printed to 8 digits).
func TestRunTestFileScoresLikeGPML(t *testing.T) {
	dir := datadir.Path("reference", "gpml", "toy2d_se_probit")
	out, stderr, code := runFG("run", "testdata/gpc_se_probit.fg", "--set", "dir="+strconv.Quote(dir),
		"--test", dir+"/test.csv", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Results []struct {
			Predictions map[string]struct {
				Test struct {
					N           int     `json:"n"`
					ErrorRate   float64 `json:"error_rate"`
					MeanLogProb float64 `json:"mean_log_prob"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Results[0].Predictions["ptest"].Test
	if s.N != 200 || !(math.Abs(s.ErrorRate-0.12) <= 1e-12) || !(math.Abs(s.MeanLogProb-(-0.35478892)) <= 1e-8) {
		t.Errorf("test score %+v; GPML n = 200, test_err = 0.12, test_mean_log_pred = -0.35478892", s)
	}
}
