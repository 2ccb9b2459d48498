package compile

import (
	"strconv"
	"strings"
	"testing"
)

// inferLines is a model's infer lines in the order a user might add them.
var inferLines = []string{
	"infer ep",
	"infer ep { divergence = alpha(0.5) }",
	"infer exact",
	"infer ep { schedule = parallel }",
	"infer ep as mine { divergence = relaxed_kl(c = 2) }",
	"infer ep { divergence = relaxed_kl(c = 2) }",
	"infer ep { divergence = alpha(0.8) }",
	"infer mcmc { samples = 500, chains = 2 }",
	"infer ep",
}

// TestLabelsStableWhenAppending: adding an infer line below the others never
// renames one, and the labels are those docs/language.md describes.
func TestLabelsStableWhenAppending(t *testing.T) {
	want := []string{"ep", "ep_alpha", "exact", "ep_2", "mine", "ep_relaxed_kl", "ep_alpha_2", "mcmc", "ep_3"}
	for n := 1; n <= len(inferLines); n++ {
		m := mustCompile(t, toyModel+strings.Join(inferLines[:n], "\n")+"\n", Options{})
		for i, s := range m.Infers {
			if s.Label != want[i] {
				t.Errorf("%d lines: label %d = %s, want %s", n, i, s.Label, want[i])
			}
		}
	}
}

// TestMethodLabelsFollowTheFile: --method lines are labelled as lines
// appended to the file; an `as` label that exists is an error at its
// position.
func TestMethodLabelsFollowTheFile(t *testing.T) {
	m := mustCompile(t, toyModel+"infer ep\ninfer ep as fast { schedule = parallel }\n", Options{})
	got, err := MethodSpecs(m, []string{"ep", "ep { divergence = alpha(0.5) }", "ep as other", "ep"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ep_2", "ep_alpha", "other", "ep_3"}
	for i, s := range got {
		if s.Label != want[i] {
			t.Errorf("--method %d: label %s, want %s", i, s.Label, want[i])
		}
	}
	// Columns index into the string the user typed.
	for _, c := range []struct {
		specs []string
		want  string
	}{
		{[]string{"ep as ep"}, "--method:1:7: label `ep` is already the label of the infer line at test.fg:"},
		{[]string{"exact as fast"}, "--method:1:10: label `fast` is already"},
		{[]string{"ep as x", "ep as x"}, "--method:1:7: label `x` is already the label of the infer line at --method:1:1"},
	} {
		_, err := MethodSpecs(m, c.specs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %s", c.specs, err, c.want)
		}
	}
}

// TestDuplicateLabelPositions: an `as` label held by an earlier line, given
// or derived, is an error at the label naming the earlier line.
func TestDuplicateLabelPositions(t *testing.T) {
	src := toyModel + "infer ep\ninfer ep as ep\n"
	_, err := CompileSource("test.fg", []byte(src), Options{})
	line := strings.Count(toyModel, "\n") + 2
	want := "test.fg:" + strconv.Itoa(line) + ":13: label `ep` is already the label of the infer line at test.fg:" + strconv.Itoa(line-1) + ":1"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}
