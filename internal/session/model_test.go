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
