package stdlib

import (
	"strings"
	"testing"
)

func TestRegistryComplete(t *testing.T) {
	want := map[Kind][]string{
		Kernel:         {"linear", "se", "ard", "matern32", "matern52", "bias", "white"},
		Data:           {"csv", "libdai", "geodesic_dome", "grid", "random_normal", "rows"},
		Math:           {"exp", "log", "abs", "sqrt", "sum", "dot", "min", "max"},
		Predict:        {"predictive"},
		DivergenceName: {"kl", "relaxed_kl", "alpha", "t"},
		ScheduleName:   {"sequential", "parallel", "random", "residual"},
		Method:         {"ep", "bp", "exact", "mcmc"},
	}
	for k, names := range want {
		for _, n := range names {
			b, ok := Lookup(k, n)
			if !ok {
				t.Errorf("%s %s missing", k, n)
				continue
			}
			if b.Doc == "" {
				t.Errorf("%s %s has no doc", k, n)
			}
		}
	}
	for _, b := range All() {
		for _, p := range b.Params {
			if !p.Required && p.Default == "" && b.Kind != Math {
				t.Errorf("%s: optional %s has no default", b.Name, p.Name)
			}
		}
	}
}

func TestFindSuggests(t *testing.T) {
	_, err := Find(Kernel, "zzzzzz")
	if err == nil || !strings.Contains(err.Error(), "known: ard, bias") {
		t.Errorf("err = %v", err)
	}
	if s := Suggest("lable", []string{"label", "labels"}); s != "label" {
		t.Errorf("Suggest(lable) = %q, want label (one transposition)", s)
	}
}

func TestBind(t *testing.T) {
	csv, _ := Lookup(Data, "csv")
	idx, _, err := Bind(csv, 1, []string{"standardize", "column"})
	if err != nil || idx[0] != 0 || idx[1] != 2 || idx[4] != 1 || idx[2] != -1 {
		t.Errorf("idx %v err %v", idx, err)
	}
	if _, _, err := Bind(csv, 0, nil); err == nil || !strings.Contains(err.Error(), "missing argument `path`") {
		t.Errorf("err = %v", err)
	}
	if _, _, err := Bind(csv, 1, []string{"colum"}); err == nil || !strings.Contains(err.Error(), "did you mean `column`") {
		t.Errorf("err = %v", err)
	}
	if _, _, err := Bind(csv, 1, []string{"path"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("err = %v", err)
	}
}

// TestBindForms: a named form binds its parameter and converts to the
// canonical value; positional arguments stay canonical.
func TestBindForms(t *testing.T) {
	b := &Builtin{Name: "d", Params: []Param{Required("mean", NumericT, "m"), RequiredVariance("var", NumericT, "v")}}
	idx, _, err := Bind(b, 1, []string{"sd"})
	if err != nil || idx[1] != 1 {
		t.Fatalf("idx %v err %v", idx, err)
	}
	for _, c := range []struct {
		form string
		x    float64
		want float64
	}{{"sd", 2, 4}, {"precision", 4, 0.25}} {
		f := b.Params[1].Form(c.form)
		if got, err := f.Canonical(c.x); err != nil || got != c.want {
			t.Errorf("%s = %g: %g, %v; want %g", c.form, c.x, got, err, c.want)
		}
	}
	if b.Params[1].Form("var") != nil || b.Params[1].Form("nope") != nil {
		t.Error("the canonical name is not a form")
	}
	if _, err := b.Params[1].Form("sd").Canonical(-2); err == nil {
		t.Error("sd = -2 accepted")
	}
	if _, err := b.Params[1].Form("precision").Canonical(1e-320); err == nil {
		t.Error("precision = 1e-320 gives an infinite variance, accepted")
	}
	if _, _, err := Bind(b, 2, []string{"precision"}); err == nil || !strings.Contains(err.Error(), "given twice (`precision =` is another form of it)") {
		t.Errorf("err = %v", err)
	}
	if s := b.Signature(); s != "d(mean, var | sd = | precision =)" {
		t.Errorf("signature %s", s)
	}
}
