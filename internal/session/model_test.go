package session

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadFSAndErrors(t *testing.T) {
	src, err := os.ReadFile("../../testdata/toy.fg")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"models/toy.fg": {Data: src}}
	m, err := LoadFS(fsys, "models/toy.fg")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "gpc_toy" || len(m.Labels()) != 3 {
		t.Errorf("name %q labels %v", m.Name(), m.Labels())
	}
	if _, err := LoadFS(fsys, "models/nosuch.fg"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Load("../../testdata/nosuch.fg"); err == nil || !strings.Contains(err.Error(), "../../testdata/nosuch.fg") {
		t.Errorf("missing file: %v", err)
	}
}

func TestSetKeepsModelOnError(t *testing.T) {
	m, err := Load("../../testdata/toy.fg")
	if err != nil {
		t.Fatal(err)
	}
	before := m.Compiled()
	if err := m.Set("nosuch", "1"); err == nil {
		t.Fatal("unknown param accepted")
	}
	if m.Compiled() != before || len(m.Overrides()) != 0 {
		t.Error("a failed Set changed the model")
	}
	if err := m.AddMethod("ep { divergence = alpha(0.5) }"); err != nil {
		t.Fatal(err)
	}
	if err := m.AddMethod("ep { divergence = alpha(0.5) }"); err != nil {
		t.Fatal(err)
	}
	l := m.Labels()
	if len(l) != 5 || l[3] == l[4] {
		t.Errorf("labels %v: extra methods must get unique labels", l)
	}
	if err := m.AddMethod("nosuchmethod"); err == nil {
		t.Error("unknown method accepted")
	}
}

// TestAddedMethodAfterLearning: an infer line added to a model with a
// learn statement runs on the model with the learned values, and its
// run-time warnings (few samples: a low effective sample size) point at
// the line as it was given.
func TestAddedMethodAfterLearning(t *testing.T) {
	m, err := Load("../../examples/learn_random_walk.fg")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddMethod("mcmc as few { samples = 40, burnin = 10, chains = 2 }"); err != nil {
		t.Fatal(err)
	}
	rs, err := m.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var few bool
	for _, r := range rs.List {
		if r.Label != "few" {
			continue
		}
		few = true
		if r.Learned == nil || len(r.Warnings) == 0 {
			t.Fatalf("the added line ran without learned values or warnings: %+v", r)
		}
		for _, w := range r.Warnings {
			if !strings.HasPrefix(w.Pos, "--method:1:") {
				t.Errorf("warning at %q: %s", w.Pos, w.Message)
			}
		}
	}
	if !few {
		t.Fatal("no result of the added line")
	}
}

// TestLibDAIMethodsReplaceDefaults: a libDAI file whose default exact line
// compile refuses (K₂₆, over the clique budget) loads with --method lines,
// which replace the default lines and are checked themselves.
func TestLibDAIMethodsReplaceDefaults(t *testing.T) {
	const path = "../../cmd/fg/testdata/badinput/libdai_exact_default_complete26/complete26.fg"
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "a default line of a libDAI file") {
		t.Fatalf("default lines: %v", err)
	}
	m, err := LoadWith(path, Overrides{Methods: []string{"bp"}})
	if err != nil || len(m.Labels()) != 1 || m.Labels()[0] != "bp" {
		t.Fatalf("--method bp: %v", err)
	}
	if _, err := LoadWith(path, Overrides{Methods: []string{"exact"}}); err == nil || !strings.Contains(err.Error(), "treewidth ≥ 25") {
		t.Errorf("--method exact: %v", err)
	}
}
