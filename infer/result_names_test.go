package infer

import "testing"

// TestUserTextHasNoGoSyntax: element names and skip reasons render as the
// table does, without Go's map or slice syntax.
func TestUserTextHasNoGoSyntax(t *testing.T) {
	if got := SkipReasons(map[string]int{"non-finite": 1, "cavity": 3}); got != "cavity: 3, non-finite: 1" {
		t.Errorf("SkipReasons = %q", got)
	}
	if got := SkipReasons(nil); got != "" {
		t.Errorf("SkipReasons(nil) = %q", got)
	}
	for _, c := range []struct {
		shape []int
		i     int
		want  string
	}{{nil, 0, "x"}, {[]int{5}, 3, "x[3]"}, {[]int{8, 2}, 6, "x[3, 0]"}, {[]int{2, 3, 4}, 23, "x[1, 2, 3]"}} {
		if got := ElementName("x", c.shape, c.i); got != c.want {
			t.Errorf("ElementName(%v, %d) = %q, want %q", c.shape, c.i, got, c.want)
		}
	}
}
