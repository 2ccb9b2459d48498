package netjoint

import "github.com/fg-infer/fg/graph"

// GaussianBlocks groups the Gaussian variables v with in(v) into the sets
// that factors couple (a factor on two of them, through any branch of a
// selection, joins their sets; union–find), each in variable order, the
// sets in the order of their first variable.
func (j *Joint) GaussianBlocks(in func(v int) bool) [][]int {
	n := j.Net
	parent := make([]int, len(n.Vars))
	for v := range parent {
		parent[v] = v
	}
	find := func(v int) int {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	isG := func(v int) bool { return n.Vars[v].Family == graph.Gaussian && in(v) }
	for _, f := range n.Factors {
		first := -1
		for _, e := range f.Edges {
			for _, v := range e.VarsOf() {
				switch {
				case !isG(v):
				case first < 0:
					first = v
				default:
					parent[find(v)] = find(first)
				}
			}
		}
	}
	var blocks [][]int
	index := map[int]int{}
	for v := range n.Vars {
		if !isG(v) {
			continue
		}
		r := find(v)
		b, ok := index[r]
		if !ok {
			b = len(blocks)
			index[r] = b
			blocks = append(blocks, nil)
		}
		blocks[b] = append(blocks[b], v)
	}
	return blocks
}
