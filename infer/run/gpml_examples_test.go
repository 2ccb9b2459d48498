package run

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

// TestGPMLExamples reproduces every case of data/reference/gpml with
// the model of examples/gpml that has its kernel and likelihood, pointed at
// the case with --set style overrides, under the sequential and the
// parallel schedule: |nlZ − nlZ_ref| ≤ 1e-6·max(1, |nlZ_ref|), training
// latent means and variances within 1e-5, test p(y = +1) within 1e-5
// (the reproduction tolerances). Step cases use GPML infEP's clamp
// (nonnegative_sites); probit cases run with and without it.
func TestGPMLExamples(t *testing.T) {
	root := datadir.Dir()
	cases, _ := filepath.Glob(filepath.Join(root, "reference", "gpml", "*"))
	n := 0
	for _, dir := range cases {
		if strings.HasSuffix(dir, "_opt100") {
			continue
		}
		n++
		dir := dir
		t.Run(filepath.Base(dir), func(t *testing.T) {
			checkGPMLCase(t, dir)
		})
	}
	if n != 8 {
		t.Errorf("found %d GPML cases, want 8", n)
	}
}

func checkGPMLCase(t *testing.T, dir string) {
	sum := readSummary(t, filepath.Join(dir, "summary.tsv"))
	hyp := strings.Fields(sum["hyp.cov"])
	set := map[string]string{"dir": strconv.Quote(dir), "log_ell": hyp[0]}
	model, extra := "se_probit.fg", ""
	switch {
	case sum["cov"] == "covLINiso":
		model = "lin_probit.fg"
	case strings.HasPrefix(sum["lik"], "stepnoise:"):
		model, extra = "se_step.fg", ", nonnegative_sites = true"
		set["eps"] = strings.TrimPrefix(sum["lik"], "stepnoise:")
	}
	if len(hyp) > 1 {
		set["log_sf"] = hyp[1]
	}
	m, err := compile.CompileFile(filepath.Join("..", "..", "examples", "gpml", model), compile.Options{Set: set})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"ep as seq { tol = 1e-11, max_iter = 1000" + extra + " }",
		"ep as par { schedule = parallel, tol = 1e-11, max_iter = 1000" + extra + " }"}
	if extra == "" {
		// GPML's infEP always clamps (ttau = max(ttau, 0)); on probit,
		// log-concave, the clamp never binds and the reference holds with it.
		lines = append(lines, "ep as clamped { tol = 1e-11, max_iter = 1000, nonnegative_sites = true }")
	}
	var specs []*compile.InferSpec
	for _, s := range lines {
		sp, err := compile.MethodSpec(m, s)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	rs, err := Run(context.Background(), m, Options{Labels: []string{}, Extra: specs})
	if err != nil {
		t.Fatal(err)
	}
	nlZ, _ := strconv.ParseFloat(sum["nlZ"], 64)
	lat := readColumns(t, filepath.Join(dir, "train_latent.csv"))
	pred := readColumns(t, filepath.Join(dir, "test_pred.csv"))
	for _, r := range rs {
		if d := math.Abs(-r.LogEvidence - nlZ); !r.HasEvidence || !(d <= 1e-6*math.Max(1, nlZ)) {
			t.Errorf("%s: −log Z = %.12g (status %v), GPML nlZ = %.12g", r.Label, -r.LogEvidence, r.Status, nlZ)
		}
		v := r.Variables.At(0)
		maxDiff(t, r.Label+" mu_f", v.Mean, lat["mu_f"], 1e-5)
		maxDiff(t, r.Label+" var_f", v.Var, lat["var_f"], 1e-5)
		maxDiff(t, r.Label+" p_plus", r.Predictions[0].Prob, pred["p_plus"], 1e-5)
	}
}

func maxDiff(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, reference %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Errorf("%s[%d] = %.10g, GPML %.10g", what, i, got[i], want[i])
			return
		}
	}
}

func readSummary(t *testing.T, path string) map[string]string {
	kv, err := refdata.Summary(path)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func readColumns(t *testing.T, path string) map[string][]float64 {
	cols, err := refdata.Columns(path)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}
