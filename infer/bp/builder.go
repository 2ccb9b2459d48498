package bp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// builder assembles a Problem factor by factor.
type builder struct {
	p    *Problem
	nv   int // variables
	nfac int // factors expected (reserve)
}

func newBuilder(nv int) *builder {
	p := &Problem{nv: nv}
	p.voff.add(0, nv+1)
	p.fstart.add(0, 1)
	return &builder{p: p, nv: nv}
}

// reserve sizes the factor arrays for nfac message-passing factors with
// nedge edges in all and ntab table entries, so that building a large
// problem does not copy them as they grow.
func (b *builder) reserve(nfac, nedge, ntab int) {
	p := b.p
	p.evar, p.tab = slices.Grow(p.evar, nedge), slices.Grow(p.tab, ntab)
	b.nfac = nfac
}

func (b *builder) addVar(card int) {
	p := b.p
	p.card.add(int32(card), b.nv)
	p.voff.add(p.voff.last()+int32(card), b.nv+1)
}

// addFactor adds a factor over distinct vars with log table logt; orig is
// its index in the source graph (or −1). With share, the factor uses the
// previous factor's table (equal to logt) instead of a copy.
func (b *builder) addFactor(vars []int32, logt []float64, orig int32, share bool) {
	p := b.p
	switch len(vars) {
	case 0:
		return // constant: handled by the caller through its log value
	case 1:
		v := vars[0]
		for k, l := range logt {
			p.prior[int(p.voff.at(v))+k] += l
		}
		if p.nabs == nil {
			p.nabs = make([]int32, p.nv)
		}
		p.nabs[v]++
		return
	}
	b.addMulti(vars, logt, 1, orig, share)
}

// addMulti adds a factor of two or more variables with the log table
// theta·t (θ = 1 for a factor with its own table, the parameter of a
// log-linear one, t its statistic), t stored unless shared with the
// previous factor.
func (b *builder) addMulti(vars []int32, t []float64, theta float64, orig int32, share bool) {
	p := b.p
	p.evar = append(p.evar, vars...)
	p.fstart.add(int32(len(p.evar)), b.nfac+1)
	if share && p.toff.n > 0 {
		p.toff.add(p.toff.last(), b.nfac)
	} else {
		p.toff.add(int32(len(p.tab)), b.nfac)
		p.tab = append(p.tab, t...)
	}
	p.theta.add(theta, b.nfac)
	p.orig.add(orig, b.nfac)
}

// finish builds the edge-to-factor index (unless every factor is
// pairwise), the message offsets (unless every variable is binary) and the
// variable-to-edge index.
func (b *builder) finish() *Problem {
	p := b.p
	if p.voff.at(int32(p.nv)) != int32(2*p.nv) {
		p.moff = make([]int32, len(p.evar)+1)
		for e, v := range p.evar {
			p.moff[e+1] = p.moff[e] + p.card.at(v)
		}
	}
	if nf := p.NumFactors(); p.fstart.at(int32(nf)) != int32(2*nf) {
		p.efac = make([]int32, len(p.evar))
		for a := range int32(nf) {
			for e := p.fstart.at(a); e < p.fstart.at(a+1); e++ {
				p.efac[e] = a
			}
		}
	}
	p.vstart = make([]int32, p.nv+1)
	for _, v := range p.evar {
		p.vstart[v+1]++
	}
	for i := 0; i < p.nv; i++ {
		p.vstart[i+1] += p.vstart[i]
	}
	p.vedge = make([]int32, len(p.evar))
	fill := append([]int32(nil), p.vstart[:p.nv]...)
	for e, v := range p.evar { // edges are numbered by factor, so each list is by factor index
		p.vedge[fill[v]] = int32(e)
		fill[v]++
	}
	return p
}

// NewSpinPairwise builds the problem of n spin variables (states −1, +1)
// with density
//
//	p(x) ∝ exp( Σ_i h_i x_i + Σ_k J_k x_{s_k} x_{t_k} ),   (s_k, t_k) = edges[k],
//
// directly in engine form, without a graph.Graph: memory is O(n + |edges|).
// Engine factor k is edge k; fields are absorbed into priors. len(h) must
// be n (or h nil for no fields) and len(J) = len(edges).
func NewSpinPairwise(n int, h []float64, edges [][2]int32, J []float64) (*Problem, error) {
	if h != nil && len(h) != n {
		return nil, fmt.Errorf("bp: %d fields for %d variables", len(h), n)
	}
	if len(J) != len(edges) {
		return nil, fmt.Errorf("bp: %d couplings for %d edges", len(J), len(edges))
	}
	b := newBuilder(n)
	b.p.prior = make([]float64, 2*n)
	p := b.p
	for range n {
		b.addVar(2)
	}
	ne := len(edges)
	b.reserve(ne, 2*ne, 4*ne)
	for k, e := range edges {
		if e[0] < 0 || e[1] < 0 || int(e[0]) >= n || int(e[1]) >= n || e[0] == e[1] || math.IsNaN(J[k]) || math.IsInf(J[k], 0) {
			return nil, fmt.Errorf("bp: edge %d (%d, %d) with coupling %v is invalid", k, e[0], e[1], J[k])
		}
		j := J[k]
		b.addFactor(e[:], []float64{j, -j, -j, j}, int32(k), false)
	}
	for i := 0; h != nil && i < n; i++ {
		if math.IsNaN(h[i]) || math.IsInf(h[i], 0) {
			return nil, fmt.Errorf("bp: field %d is %v", i, h[i])
		}
		b.addFactor([]int32{int32(i)}, []float64{-h[i], h[i]}, int32(-1), false)
	}
	p.nfac = ne
	return b.finish(), nil
}

// RandomIsingGrid is the r×c spin grid (open boundary, 4-neighbour edges)
// with fields h_i ~ N(0, 1) and couplings J_k ~ N(0, 0.25) drawn from a PCG
// stream seeded by seed: the benchmark problem of this package and of
// cmd/fgbench (libDAI's createfg makes the same kind of grid).
func RandomIsingGrid(r, c int, seed uint64) (*Problem, error) {
	if r < 1 || c < 1 || r > maxGridSide || c > maxGridSide {
		return nil, fmt.Errorf("bp: grid %d×%d: each side must be in 1..%d", r, c, maxGridSide)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	h := make([]float64, r*c)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	edges := make([][2]int32, 0, 2*r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := int32(i*c + j)
			if j+1 < c {
				edges = append(edges, [2]int32{v, v + 1})
			}
			if i+1 < r {
				edges = append(edges, [2]int32{v, v + int32(c)})
			}
		}
	}
	J := make([]float64, len(edges))
	for k := range J {
		J[k] = 0.5 * rng.NormFloat64()
	}
	return NewSpinPairwise(r*c, h, edges, J)
}

// maxGridSide bounds RandomIsingGrid's sides (r·c variables must index as
// int32).
const maxGridSide = 1 << 15
