package present

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCompactNames checks the compact list of names against hand-written
// lists, and that expandNames gives every list back.
func TestCompactNames(t *testing.T) {
	many := make([]string, 1000)
	for i := range many {
		many[i] = fmt.Sprint("x", i)
	}
	cases := []struct{ in, want []string }{
		{nil, nil},
		{[]string{"z"}, []string{"z"}},
		{[]string{"x0", "x1"}, []string{"x0", "x1"}},                            // too short for a range
		{[]string{"x0", "x1", "x2"}, []string{"x0…x2"}},                         // a range
		{many, []string{"x0…x999"}},                                             // a libDAI file's latents
		{[]string{"x1", "x2", "x3", "y4", "x4"}, []string{"x1…x3", "y4", "x4"}}, // order kept
		{[]string{"x08", "x09", "x10"}, []string{"x08", "x09", "x10"}},          // leading zeros are names
		{[]string{"x5", "x4", "x3"}, []string{"x5", "x4", "x3"}},                // falling
		{[]string{"a9", "a10", "a11", "b", "c2", "c3", "c4", "c6"}, []string{"a9…a11", "b", "c2…c4", "c6"}},
		{[]string{"7", "8", "9"}, []string{"7", "8", "9"}}, // no prefix
	}
	for _, c := range cases {
		got := CompactNames(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("CompactNames(%v) = %v, want %v", c.in, got, c.want)
		}
		if back := expandNames(got); !slices.Equal(back, c.in) {
			t.Errorf("expandNames(%v) = %v, want %v", got, back, c.in)
		}
	}
}

// expandNames is the inverse of CompactNames: a reader's expansion of a
// compact list.
func expandNames(list []string) []string {
	var out []string
	for _, s := range list {
		a, b, ok := strings.Cut(s, NameRange)
		if !ok {
			out = append(out, s)
			continue
		}
		pa, first, okA := numbered(a)
		pb, last, okB := numbered(b)
		if !okA || !okB || pa != pb || last < first {
			out = append(out, s)
			continue
		}
		for n := first; n <= last; n++ {
			out = append(out, pa+strconv.FormatUint(n, 10))
		}
	}
	return out
}
