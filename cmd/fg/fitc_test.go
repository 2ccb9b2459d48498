package main

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

// TestRunFITCMatchesGPML runs examples/gpml/fitc_probit.fg through the CLI
// with --set on both cases of data/reference/gpml_fitc and compares with
// GPML 4.2's sparse (FITC) infEP: log Z_EP = −nlZ to 1e-6 relative,
// training-latent marginals and test fmu, fs2, p(y = +1) to 1e-5; the
// example's own expect lines (nlZ, sequential = parallel) must hold too.
func TestRunFITCMatchesGPML(t *testing.T) {
	for _, c := range []struct{ name, logEll, logSf string }{
		{"synth_ripley_fitc16", "-1", "0.5"},
		{"pima_ripley_fitc20", "1", "0.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := datadir.Path("reference", "gpml_fitc", c.name)
			sum, err := refdata.Summary(dir + "/summary.tsv")
			if err != nil {
				t.Fatal(err)
			}
			nlZ, _ := strconv.ParseFloat(sum["nlZ"], 64)
			out, stderr, code := runFG("run", "../../examples/gpml/fitc_probit.fg", "--set", "dir="+strconv.Quote(dir),
				"--set", "log_ell="+c.logEll, "--set", "log_sf="+c.logSf, "--set", "nlz_gpml="+sum["nlZ"], "--json", "--check")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc struct {
				Results []struct {
					Label       string
					LogEvidence float64 `json:"log_evidence"`
					Variables   map[string]struct{ Mean, Var []float64 }
					Predictions map[string]struct{ Mean, Var, Prob []float64 }
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			lat := readCSVColumns(t, dir+"/train_latent.csv")
			pred := readCSVColumns(t, dir+"/test_pred.csv")
			for _, r := range doc.Results {
				if rel := math.Abs(r.LogEvidence+nlZ) / nlZ; rel > 1e-6 {
					t.Errorf("%s: log Z = %.12g, GPML −nlZ = %.12g (rel %.2g)", r.Label, r.LogEvidence, -nlZ, rel)
				}
				f, p := r.Variables["f"], r.Predictions["ptest"]
				within(t, r.Label+" mu_f", f.Mean, lat["mu_f"], 1e-5)
				within(t, r.Label+" var_f", f.Var, lat["var_f"], 1e-5)
				within(t, r.Label+" fmu", p.Mean, pred["fmu"], 1e-5)
				within(t, r.Label+" fs2", p.Var, pred["fs2"], 1e-5)
				within(t, r.Label+" p_plus", p.Prob, pred["p_plus"], 1e-5)
			}
			if len(doc.Results) != 2 {
				t.Errorf("%d results, want 2", len(doc.Results))
			}
		})
	}
}

func within(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Errorf("%s[%d] = %.10g, GPML %.10g", what, i, got[i], want[i])
			return
		}
	}
}
