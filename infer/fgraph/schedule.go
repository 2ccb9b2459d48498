package fgraph

import "slices"

// tree is the forward–backward schedule of a graph whose bipartite
// variable–factor graph is a forest (a chain, a hierarchy, a regression with
// one observation per factor). Each component is rooted at a variable and
// its factors are listed in breadth-first order with the edge that leads to
// their parent variable. One pass is
//
//	upward:   factors in reverse order, each sends its message to its parent;
//	downward: factors in order, each sends its messages to its children,
//	          and a leaf site (its one edge leads to its parent) sends its
//	          message to its variable again,
//
// after which every message is the exact sum-product message (Pearl; Kschischang,
// Frey & Loeliger 2001), so for linear-Gaussian factors the beliefs are the
// exact marginals (the RTS smoother on a chain) after one pass.
//
// The factors below a variable are listed leaf sites first, then the other
// leaves (priors, observations), then the factors that lead further down.
// A leaf site is therefore updated when its variable's belief holds every
// other message of the current pass: in the upward pass after the messages
// from below (fresh) and with the one from above of the previous downward
// pass, in the downward pass after the fresh message from above. On a chain
// this is sequential EP with each site's cavity the exact marginal given the
// other sites' current approximations (Heskes & Zoeter 2002, "Expectation
// propagation for approximate inference in dynamic Bayesian networks", §4:
// forward and backward messages kept up to date as the pass goes), the
// schedule of infer/ep's sequential EP on the joint. Updating the sites only
// in the upward pass, before the message from below has arrived, would give
// every site the cavity of the previous pass: parallel EP, which on long
// chains with saturated labels oscillates with period two.
type tree struct {
	order  []int32 // factors, parents before children
	parent []int32 // per factor: the edge to its parent variable
}

// adjacency lists the edges of each variable (CSR: edges of v are
// vedge[vstart[v]:vstart[v+1]]) and the factor of each edge.
type adjacency struct {
	vstart, vedge []int32
	efactor       []int32
}

func newAdjacency(g *Graph) *adjacency {
	ad := &adjacency{vstart: make([]int32, g.n+1), vedge: make([]int32, g.numEdges()), efactor: make([]int32, g.numEdges())}
	for _, vs := range g.varLists() {
		for _, v := range vs {
			ad.vstart[v+1]++
		}
	}
	for v := 0; v < g.n; v++ {
		ad.vstart[v+1] += ad.vstart[v]
	}
	fill := append([]int32(nil), ad.vstart[:g.n]...)
	e := 0 // factor k's edges follow factor k−1's
	for k, vs := range g.varLists() {
		for _, v := range vs {
			ad.vedge[fill[v]] = int32(e)
			fill[v]++
			ad.efactor[e] = int32(k)
			e++
		}
	}
	return ad
}

// degree returns the number of factors on variable v.
func (ad *adjacency) degree(v int) int { return int(ad.vstart[v+1] - ad.vstart[v]) }

// isForest reports whether the bipartite graph has no cycle: a graph with
// V + F nodes, E edges and C components is a forest iff E = V + F − C.
func isForest(g *Graph, ad *adjacency) bool {
	return g.numEdges() == g.n+g.NumFactors()-components(g, ad)
}

// components counts the connected components of the bipartite graph by
// union–find over variables (a factor joins its variables).
func components(g *Graph, ad *adjacency) int {
	parent := make([]int32, g.n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	c := g.n + g.NumFactors()
	for _, vs := range g.varLists() {
		c-- // the factor joins the component of its first variable
		r := find(vs[0])
		for _, v := range vs[1:] {
			if s := find(v); s != r {
				parent[s] = r
				c--
			}
		}
	}
	return c
}

// newTree orders the factors of a forest breadth-first from a root variable
// per component.
func newTree(g *Graph, ad *adjacency) *tree {
	f := g.NumFactors()
	t := &tree{order: make([]int32, 0, f), parent: make([]int32, f)}
	seenV := make([]bool, g.n)
	seenF := make([]bool, f)
	queue := make([]int32, 0, g.n)
	for root := 0; root < g.n; root++ {
		if seenV[root] {
			continue
		}
		seenV[root] = true
		queue = append(queue[:0], int32(root))
		for head := 0; head < len(queue); head++ {
			v := queue[head]
			first := len(t.order)
			for _, e := range ad.vedge[ad.vstart[v]:ad.vstart[v+1]] {
				k := ad.efactor[e]
				if seenF[k] {
					continue
				}
				seenF[k] = true
				t.order = append(t.order, k)
				t.parent[k] = e
				fk := g.fac(int(k))
				lo, hi := fk.lo, fk.hi
				for c := lo; c < hi; c++ {
					if w := fk.v(c); !seenV[w] {
						seenV[w] = true
						queue = append(queue, int32(w))
					}
				}
			}
			slices.SortStableFunc(t.order[first:], func(a, b int32) int { return leafRank(g, a) - leafRank(g, b) })
		}
	}
	return t
}

// leafRank orders the factors below a variable: leaf sites (0), other
// leaves (1), factors with variables further down (2).
func leafRank(g *Graph, k int32) int {
	fk := g.fac(int(k))
	lo, hi := fk.lo, fk.hi
	switch {
	case hi-lo > 1:
		return 2
	case fk.gaussian():
		return 1
	}
	return 0
}

// leaf reports whether factor f of the forest has no edge but the one to
// its parent.
func (t *tree) leaf(f *fac) bool { return f.hi-f.lo == 1 }
