package present

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// boundaryFixture is a 2-D problem where result i predicts p = Φ(x − c_i)
// on a grid, so its boundary is the vertical line x = c_i.
func boundaryFixture() ([]*infer.Result, *Boundary) {
	b := &Boundary{Pred: "grid", XLabel: "x1", YLabel: "x2",
		Points:  [][2]float64{{-2, 1}, {-1, 2}, {1, -1}, {2, -2}, {3, 1}},
		Labels:  []float64{-1, -1, 1, 1, -1},
		Factors: []string{"step(y[0])", "step(y[1])", "step(y[2])", "step(y[3])", "step(y[4])"}}
	for i := 0; i <= 40; i++ {
		b.Xs = append(b.Xs, -4+0.2*float64(i))
		b.Ys = append(b.Ys, -4+0.2*float64(i))
	}
	rs := fixture()[:3]
	for i, r := range rs {
		c := float64(i) * 0.5
		pr := infer.Prediction{Name: "grid", Shape: []int{len(b.Xs) * len(b.Ys)}}
		for _, y := range b.Ys {
			_ = y
			for _, x := range b.Xs {
				pr.Mean = append(pr.Mean, x-c)
				pr.Var = append(pr.Var, 1)
				pr.Prob = append(pr.Prob, 0.5*math.Erfc(-(x-c)/math.Sqrt2))
			}
		}
		r.Predictions = append(r.Predictions, pr)
	}
	return rs, b
}

func TestPlotWritesPNG(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("FG_PLOT_DIR"); d != "" {
		dir = d // keep the PNGs to look at them
	}
	rs, b := boundaryFixture()
	cases := map[string]struct {
		rs []*infer.Result
		b  *Boundary
	}{
		"all.png":      {fixture(), nil},
		"boundary.png": {rs, b},
	}
	for name, c := range cases {
		path := filepath.Join(dir, name)
		if err := WritePlot(path, "toy", c.rs, c.b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 400 {
			t.Errorf("%s: image too small: %v", name, r)
		}
	}
}

func TestPlotPanels(t *testing.T) {
	rs, b := boundaryFixture()
	if n := len(buildPanels("", rs, b)); n != 3 { // trace, marginals, boundary
		t.Errorf("%d panels, want 3", n)
	}
	if n := len(buildPanels("", fixture(), nil)); n != 3 { // trace, marginals, discrete
		t.Errorf("%d panels, want 3", n)
	}
	if err := WritePlot(filepath.Join(t.TempDir(), "x.png"), "", []*infer.Result{{Label: "e"}}, nil); err == nil {
		t.Error("empty results should be an error, not an empty picture")
	}
}

func TestFillNonFinite(t *testing.T) {
	nan := math.NaN()
	z := []float64{
		1, 2, 3,
		4, nan, 6,
		nan, 8, math.Inf(1),
	}
	got := fillNonFinite(z, 3, 0.5)
	want := []float64{1, 2, 3, 4, (2 + 4 + 6 + 8) / 4.0, 6, (4 + 8) / 2.0, 8, (6 + 8) / 2.0}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("z[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if all := fillNonFinite([]float64{nan}, 1, 0.5); all[0] != 0.5 {
		t.Errorf("isolated NaN -> %v, want the default", all[0])
	}
}
