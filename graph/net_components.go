package graph

// Components groups the variables v of n with in(v) into the sets that
// factors join: two such variables are in one set when a chain of factors
// links them, each factor joining the variables with in(v) among those it
// touches (through any branch of a selection). Each set is in variable
// order and the sets are ordered by their first variable; a variable with
// in(v) that no factor joins to another is a set of its own. With in
// always true these are the connected components of the Net, which are
// independent a posteriori.
func (n *Net) Components(in func(v int) bool) [][]int {
	u := newUnionFind(len(n.Vars))
	for _, f := range n.Factors {
		first := -1
		for _, e := range f.Edges {
			for _, v := range e.VarsOf() {
				switch {
				case !in(v):
				case first < 0:
					first = v
				default:
					u.union(first, v)
				}
			}
		}
	}
	return u.groups(len(n.Vars), in)
}
