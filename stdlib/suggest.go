package stdlib

import (
	"fmt"
	"strings"

	"github.com/fg-infer/fg/lang/diag"
)

// Suggest returns the candidate closest to name, or "" when none is close.
// It is lang/diag.Suggest, the project's one implementation: optimal-string-
// alignment distance over runes (insertions, deletions, substitutions and
// transpositions of two adjacent characters each cost 1, so "lable" is one
// edit from "label"), at most max(1, len(name)/3) edits, ties to the earlier
// candidate, name itself never suggested.
func Suggest(name string, candidates []string) string {
	return diag.Suggest(name, candidates)
}

// Bind matches a call's arguments to b's parameters. npos is the number of
// positional arguments (they come first), named the names of the named
// arguments in order. The result maps each parameter to the index of its
// argument (positional i → i, the k-th named → npos + k), or −1 when it is
// omitted and takes its default. For a variadic builtin the positional
// arguments beyond the fixed ones are returned in extra (their indices), and
// the last parameter takes the last positional argument. A named argument
// binds to the parameter of that name or to the one with a Form of that
// name (`sd = 2` binds normal's `var`); Param.Form tells which.
func Bind(b *Builtin, npos int, named []string) (idx []int, extra []int, err error) {
	idx = make([]int, len(b.Params))
	for i := range idx {
		idx[i] = -1
	}
	np := len(b.Params)
	switch {
	case b.Variadic && npos >= np:
		for i := 0; i < np-1; i++ {
			idx[i] = i
		}
		for i := np - 1; i < npos-1; i++ {
			extra = append(extra, i)
		}
		idx[np-1] = npos - 1
	case npos > np:
		return nil, nil, fmt.Errorf("%s takes at most %d arguments, got %d: %s", b.Name, np, npos, b.Signature())
	default:
		for i := 0; i < npos; i++ {
			idx[i] = i
		}
	}
	for k, n := range named {
		pi := -1
		for i, p := range b.Params {
			if p.accepts(n) {
				pi = i
			}
		}
		if pi < 0 {
			var names []string
			for _, p := range b.Params {
				names = append(names, p.Name)
				for _, f := range p.Forms {
					names = append(names, f.Name)
				}
			}
			msg := fmt.Sprintf("%s has no parameter `%s`", b.Name, n)
			if s := Suggest(n, names); s != "" {
				msg += fmt.Sprintf("; did you mean `%s`?", s)
			}
			return nil, nil, fmt.Errorf("%s: %s", msg, b.Signature())
		}
		if idx[pi] >= 0 {
			p := b.Params[pi]
			if p.Name == n {
				return nil, nil, fmt.Errorf("%s: parameter `%s` given twice", b.Name, n)
			}
			return nil, nil, fmt.Errorf("%s: parameter `%s` given twice (`%s =` is another form of it): %s", b.Name, p.Name, n, b.Signature())
		}
		idx[pi] = npos + k
	}
	var missing []string
	for i, p := range b.Params {
		if p.Required && idx[i] < 0 {
			missing = append(missing, "`"+p.Name+"`")
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%s: missing argument %s: %s", b.Name, strings.Join(missing, ", "), b.Signature())
	}
	return idx, extra, nil
}
