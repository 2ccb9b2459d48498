package compile

import langdiag "github.com/fg-infer/fg/lang/diag"

// didYouMean returns "; did you mean `x`?" for the closest candidate x by
// optimal-string-alignment distance (lang/diag.Suggest: insertions,
// deletions, substitutions and adjacent transpositions cost 1, at most
// max(1, len(name)/3) edits), or "" when none is close.
func didYouMean(name string, candidates []string) string {
	return langdiag.DidYouMean(name, candidates)
}
