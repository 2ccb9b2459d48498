package stdlib

import (
	"strings"
	"testing"
)

func TestRegistryComplete(t *testing.T) {
	want := map[Kind][]string{
		Distribution:   {"normal", "mvnormal", "gp", "student_t", "tp", "uniform_spin", "probit", "step"},
		Potential:      {"ising", "field", "table", "exp"},
		Loss:           {"logistic_loss", "hinge", "quasi01"},
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
	_, err := Find(Distribution, "probitt")
	if err == nil || err.Error() != "unknown distribution `probitt`; did you mean `probit`?" {
		t.Errorf("err = %v", err)
	}
	_, err = Find(Kernel, "zzzzzz")
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
	step, _ := Lookup(Distribution, "step")
	if _, _, err := Bind(step, 3, nil); err == nil || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("err = %v", err)
	}
	tab, _ := Lookup(Potential, "table")
	idx, extra, err := Bind(tab, 4, nil)
	if err != nil || len(extra) != 2 || idx[0] != 0 || idx[1] != 3 {
		t.Errorf("table: idx %v extra %v err %v", idx, extra, err)
	}
}

func TestRules(t *testing.T) {
	ok := [][3]string{{"probit", "ep", "kl"}, {"step", "ep", "t"}, {"step", "ep", "relaxed_kl"}, {"step", "ep", "alpha"},
		{"probit", "ep", "t"}, {"normal", "ep", "alpha"}, {"logistic", "ep", "kl"}, {"hinge", "ep", "kl"}, {"quasi01", "ep", "kl"},
		{"exp", "ep", "kl"}, {"ising", "bp", "relaxed_kl"}, {"table", "bp", "alpha"}, {"field", "bp", "kl"},
		{"step", "exact", ""}, {"ising", "mcmc", ""}}
	for _, k := range ok {
		if _, err := LookupRule(k[0], k[1], k[2]); err != nil {
			t.Errorf("%v: %v", k, err)
		}
	}
	bad := [][3]string{{"step", "bp", "t"}, {"exp", "ep", "alpha"}, {"ising", "ep", "kl"}, {"normal", "ep", "t"}}
	for _, k := range bad {
		if _, err := LookupRule(k[0], k[1], k[2]); err == nil {
			t.Errorf("%v accepted", k)
		}
	}
	_, err := LookupRule("step", "bp", "t")
	want := "no rule for step with divergence t in bp; available: step in ep with alpha, kl, relaxed_kl, t; step in exact with no divergence"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "bp handles field, ising, table, uniform_spin") {
		t.Errorf("err = %v", err)
	}
	r, _ := LookupRule("quasi01", "ep", "kl")
	if r.Quality != Experimental || !r.Approx {
		t.Errorf("quasi01 rule %+v", r)
	}
}
