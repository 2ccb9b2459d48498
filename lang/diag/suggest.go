package diag

// Suggest returns the candidate closest to name by optimal-string-alignment
// edit distance (insertions, deletions, substitutions and transpositions of
// adjacent characters each cost 1), provided the distance is at most
// max(1, len(name)/3); otherwise "". Ties go to the earlier candidate;
// name itself is never suggested.
func Suggest(name string, candidates []string) string {
	limit := max(1, len([]rune(name))/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean returns "; did you mean `x`?" for the suggestion x, or "",
// ready to append to an error message.
func DidYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return "; did you mean `" + s + "`?"
	}
	return ""
}

// distance is the optimal string alignment distance between a and b,
// computed over runes with three rolling rows.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
