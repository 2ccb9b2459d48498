package compile

import "strings"

// labelRun makes the labels kind(NAME) of the n elements of one statement
// (name appends element k's NAME) as substrings of one string, so that a
// statement over 10⁶ elements allocates its labels once rather than once
// each; label(k) is element k's.
func labelRun(n int, kind string, name func(b []byte, k int) []byte) (label func(k int) string) {
	if n == 0 {
		return func(int) string { return "" }
	}
	// Room for n labels as long as the last (the longest index).
	b := make([]byte, 0, n*(len(kind)+2+len(name(nil, n-1))))
	ends := make([]int, n)
	for k := range n {
		b = append(b, kind...)
		b = append(b, '(')
		b = name(b, k)
		b = append(b, ')')
		ends[k] = len(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	sb.Write(b)
	all := sb.String()
	return func(k int) string {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		return all[start:ends[k]]
	}
}
