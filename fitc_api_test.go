package fg

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

// TestFITCThroughAPI loads examples/gpml/fitc_probit.fg through the Go API,
// points it at the pima case of data/reference/gpml_fitc with Set, runs it
// and checks its expect lines (GPML 4.2's nlZ to 1e-6 relative, sequential
// = parallel to 1e-8), log Z and the test p(y = +1) against GPML directly.
func TestFITCThroughAPI(t *testing.T) {
	m, err := Load("examples/gpml/fitc_probit.fg")
	if err != nil {
		t.Fatal(err)
	}
	const nlZ = 103.27672157785325 // data/reference/gpml_fitc/pima_ripley_fitc20/summary.tsv
	for name, v := range map[string]string{
		"dir":      strconv.Quote(datadir.Path("reference", "gpml_fitc", "pima_ripley_fitc20")),
		"log_ell":  "1",
		"log_sf":   "0.5",
		"nlz_gpml": strconv.FormatFloat(nlZ, 'g', -1, 64),
	} {
		if err := m.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Expects() {
		if !e.Pass {
			t.Errorf("expect failed: %+v", e)
		}
	}
	r := res.Get("ep")
	if lz, ok := r.LogZ(); !ok || !(math.Abs(lz+nlZ) <= 1e-6*nlZ) {
		t.Errorf("log Z %.12g (%v), GPML −nlZ %.12g", lz, ok, -nlZ)
	}
	pred, err := refdata.Columns(datadir.Path("reference", "gpml_fitc", "pima_ripley_fitc20", "test_pred.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range pred["p_plus"] {
		if got, err := r.Prediction("ptest", i); err != nil || !(math.Abs(got-want) <= 1e-5) {
			t.Fatalf("ptest[%d] = %.10g (%v), GPML %.10g", i, got, err, want)
		}
	}
}
