package fgraph

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fg-infer/fg/internal/openblas"
)

// directed is a directed reading of the linear-Gaussian factors: each
// variable is defined by one of them (or by a block), in an order where a
// factor's other variables come first, and the factors that define no
// variable are observations of the ones before.
type directed struct {
	order []int32 // the variables, parents first: the blocks', then the peeled ones
	def   []int32 // per variable: the factor that defines it, −1 in a block
	obs   []int32 // the linear-Gaussian factors that define no variable
}

// direct reads g as a directed model by peeling: the blocks' variables
// come first (a block has a constant mean, so it has no parents), then a
// linear-Gaussian factor N(y; a_v x_v + Σ_j a_j x_j + c, σ²) whose variables
// are all defined but one, v, defines v,
//
//	x_v = (y − c − Σ_j a_j x_j)/a_v + ε_v,   ε_v ~ N(0, σ²/a_v²),
//
// until no such factor is left. When the model is directed (every variable
// has one prior or conditional, with no cycle, as compile builds it) the
// peeling defines every variable whatever factor it takes first: the
// first undefined variable of a topological order always has its own
// conditional ready. It fails (ok false) on an undirected loop (no factor
// with a single undefined variable while some are undefined) or when
// blocks overlap. ad is g's adjacency.
func direct(g *Graph, ad *adjacency) (d directed, ok bool) {
	d.def = make([]int32, g.n)
	defined := make([]bool, g.n)
	for _, b := range g.blocks {
		for _, v := range b.vars {
			if defined[v] {
				return d, false
			}
			defined[v] = true
			d.def[v] = -1
			d.order = append(d.order, int32(v))
		}
	}
	undef := make([]int32, g.NumFactors())
	var queue []int32
	for k, vs := range g.varLists() {
		if !g.gaussian(k) {
			continue
		}
		for _, v := range vs {
			if !defined[v] {
				undef[k]++
			}
		}
		if undef[k] == 1 {
			queue = append(queue, int32(k))
		}
	}
	used := make([]bool, g.NumFactors())
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if undef[k] != 1 {
			continue
		}
		fk := g.fac(int(k))
		lo, hi := fk.lo, fk.hi
		v := int32(-1)
		for e := lo; e < hi; e++ {
			if u := int32(fk.v(e)); !defined[u] {
				v = u
			}
		}
		defined[v], d.def[v], used[k] = true, k, true
		d.order = append(d.order, v)
		for _, e := range ad.vedge[ad.vstart[v]:ad.vstart[v+1]] {
			if f := ad.efactor[e]; g.gaussian(int(f)) {
				if undef[f]--; undef[f] == 1 {
					queue = append(queue, f)
				}
			}
		}
	}
	if len(d.order) < g.n {
		return d, false
	}
	for k := range used {
		if g.gaussian(k) && !used[k] {
			d.obs = append(d.obs, int32(k))
		}
	}
	return d, true
}

// priorMoments returns the mean and covariance of the directed prior
// (direct) with no inversion: the blocks' N(m, K) are copied, and each
// peeled variable x_v = Σ_j b_j x_j + d + ε_v (b_j = −a_j/a_v,
// d = (y − c)/a_v, Var ε_v = q = σ²/a_v²) adds
//
//	μ_v = Σ_j b_j μ_j + d,   Σ_{v,·} = Σ_j b_j Σ_{j,·},   Σ_vv = Σ_j b_j Σ_{j,v} + q,
//
// in O(n · edges) time. The covariance is returned as the full n×n row-major
// array (both triangles). logJac is −Σ_v log|a_v|: the defining factors'
// product is that constant times the prior density, since
// N(y; a_v x_v + r, σ²) = N(x_v; (y − r)/a_v, σ²/a_v²) / |a_v|. It checks
// done before each variable (O(edges · n) work) and returns
// openblas.ErrCanceled when it closes.
func priorMoments(g *Graph, d directed, done <-chan struct{}) (mu, sigma []float64, logJac float64, err error) {
	n := g.n
	mu, sigma = make([]float64, n), make([]float64, n*n)
	for _, b := range g.blocks {
		for i, vi := range b.vars {
			mu[vi] = b.mean[i]
			for j, vj := range b.vars {
				sigma[vi*n+vj] = b.cov.At(i, j)
			}
		}
	}
	for _, v32 := range d.order {
		if openblas.Done(done) {
			return nil, nil, 0, openblas.ErrCanceled
		}
		k := d.def[v32]
		if k < 0 {
			continue
		}
		v := int(v32)
		fk := g.fac(int(k))
		lo, hi := fk.lo, fk.hi
		av := 0.0
		for e := lo; e < hi; e++ {
			if int(fk.v(e)) == v {
				av = fk.a(e)
			}
		}
		row := sigma[v*n : (v+1)*n]
		m := (fk.y() - fk.c()) / av
		for e := lo; e < hi; e++ {
			if j := int(fk.v(e)); j != v {
				b := -fk.a(e) / av
				m += b * mu[j]
				floats.AddScaled(row, b, sigma[j*n:(j+1)*n])
			}
		}
		vv := fk.variance() / (av * av)
		for e := lo; e < hi; e++ {
			if j := int(fk.v(e)); j != v {
				vv -= fk.a(e) / av * row[j]
			}
		}
		mu[v] = m
		for j, s := range row {
			sigma[j*n+v] = s
		}
		sigma[v*n+v] = vv
		logJac -= math.Log(math.Abs(av))
	}
	return mu, sigma, logJac, nil
}
