package graph

import (
	"strconv"
	"testing"
)

// TestLabelColumn: labels added as strings, as prefix + index + suffix and
// as tagged (made by the tag) read back as given in order, through
// AppendFrom (forms kept) and Move; indexed labels over consecutive
// indices are one rule of their column, not a string or a number each.
func TestLabelColumn(t *testing.T) {
	var c LabelColumn
	var want []string
	for k := range 1000 {
		c.AddIndexed("normal(y[", 5+k, "])")
		want = append(want, "normal(y["+strconv.Itoa(5+k)+"])")
	}
	if len(c.runs) != 1 || c.runs[0].index.Bytes() > 256 || c.runs[0].strs != nil {
		t.Fatalf("%d stretches, index column %d bytes: the labels are not a rule", len(c.runs), c.runs[0].index.Bytes())
	}
	c.Add("probit(y[2, 3])")
	c.Add("probit(y[3, 3])")
	c.AddTagged(2)
	c.AddIndexed("normal(x[", 1, "])")
	c.AddTagged(1)
	want = append(want, "probit(y[2, 3])", "probit(y[3, 3])", "", "", "normal(x[1])", "")
	check := func(name string, c *LabelColumn) {
		t.Helper()
		if c.Len() != len(want) {
			t.Fatalf("%s: %d labels, want %d", name, c.Len(), len(want))
		}
		for k, w := range want {
			if got := c.At(k); got != w {
				t.Errorf("%s: label %d = %q, want %q", name, k, got, w)
			}
		}
	}
	check("added", &c)
	var copied LabelColumn
	for k := range c.Len() {
		copied.AppendFrom(&c, k)
	}
	check("AppendFrom", &copied)
	if len(copied.runs) != len(c.runs) {
		t.Errorf("AppendFrom made %d stretches from %d", len(copied.runs), len(c.runs))
	}
	var moved LabelColumn
	moved.AddTagged(1)
	moved.Move(&c)
	want = append([]string{""}, want...)
	check("Move", &moved)
	if c.Len() != 0 {
		t.Errorf("Move left %d labels in its source", c.Len())
	}
	moved.Add("extra")
	if moved.At(moved.Len()-1) != "extra" || moved.At(1001) != "probit(y[2, 3])" {
		t.Errorf("Add after Move: %q, %q", moved.At(moved.Len()-1), moved.At(1001))
	}
}
