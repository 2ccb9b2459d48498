package graph

import "testing"

// BenchmarkEliminationGrid40 is the min-fill order of a 40×40 Ising grid
// (libDAI's grid models: pairwise factors on a lattice), 1600 variables.
func BenchmarkEliminationGrid40(b *testing.B) {
	benchOrder(b, pairGraph(1600, gridEdges(40, 40)), MinFill)
}

// BenchmarkEliminationGrid40Weight is the same with min-weight.
func BenchmarkEliminationGrid40Weight(b *testing.B) {
	benchOrder(b, pairGraph(1600, gridEdges(40, 40)), MinWeight)
}

// BenchmarkEliminationChain20k is the min-fill order of a chain of 20000
// variables (an HMM-like model), where the greedy scan dominates.
func BenchmarkEliminationChain20k(b *testing.B) {
	var es [][2]int
	for i := 0; i+1 < 20000; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	benchOrder(b, pairGraph(20000, es), MinFill)
}

func benchOrder(b *testing.B, g *Graph, h string) {
	for b.Loop() {
		if _, _, _, err := g.EliminationOrder(h); err != nil {
			b.Fatal(err)
		}
	}
}
