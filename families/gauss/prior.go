package gauss

import (
	"fmt"
	"iter"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/internal/openblas"
)

// Linear is what the joint Gaussian prior reads of a factor graph over
// NumVars scalar variables: its factors in order, of which the
// linear-Gaussian ones
//
//	N(y_k; a_kᵀx + c_k, σ_k²)
//
// enter the prior (Gaussian(k); the others, likelihood sites, are
// skipped), and its dense blocks N(x_F; m, K) (mean nil = 0). compile's
// real-latent IR (graph.FactorGraph's Gaussian forms and blocks) and
// infer/fgraph's engine storage implement it, so that the gold standards
// and infer/fgraph's dense joint propagate the same prior one way.
type Linear interface {
	NumVars() int
	NumFactors() int
	Gaussian(k int) bool
	// VarLists iterates over every factor in order with its variables in
	// edge order.
	VarLists() iter.Seq2[int, []int32]
	// Adjacent iterates over the factor of each edge of variable v, in
	// the order of the factors (VarLists' order).
	Adjacent(v int) iter.Seq[int32]
	// Form appends factor k's variables and coefficients to vars and
	// coefs and returns them with c_k, y_k and σ_k².
	Form(k int, vars []int, coefs []float64) ([]int, []float64, float64, float64, float64)
	NumBlocks() int
	Block(b int) (vars []int, mean []float64, cov *mat.SymDense)
}

// Directed is a directed reading of the linear-Gaussian factors of a
// Linear: each variable is defined by one of them (or by a block), in an
// order where a factor's other variables come first, and the factors that
// define no variable are observations of the ones before.
type Directed struct {
	Order []int32 // the variables, parents first: the blocks', then the peeled ones
	Def   []int32 // per variable: the factor that defines it, −1 in a block
	Obs   []int32 // the linear-Gaussian factors that define no variable
}

// Direct reads l as a directed model by peeling: the blocks' variables
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
// blocks overlap.
func Direct(l Linear) (d Directed, ok bool) {
	n, nf := l.NumVars(), l.NumFactors()
	d.Def = make([]int32, n)
	defined := make([]bool, n)
	for b := range l.NumBlocks() {
		vars, _, _ := l.Block(b)
		for _, v := range vars {
			if defined[v] {
				return d, false
			}
			defined[v] = true
			d.Def[v] = -1
			d.Order = append(d.Order, int32(v))
		}
	}
	undef := make([]int32, nf)
	lin := make([]bool, nf) // Gaussian(k), asked once per factor
	var queue []int32
	for k, vs := range l.VarLists() {
		if lin[k] = l.Gaussian(k); !lin[k] {
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
	used := make([]bool, nf)
	var vars []int
	var coefs []float64
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if undef[k] != 1 {
			continue
		}
		vars, coefs, _, _, _ = l.Form(int(k), vars[:0], coefs[:0])
		v := int32(-1)
		for _, u := range vars {
			if !defined[u] {
				v = int32(u)
			}
		}
		defined[v], d.Def[v], used[k] = true, k, true
		d.Order = append(d.Order, v)
		for f := range l.Adjacent(int(v)) {
			if lin[f] {
				if undef[f]--; undef[f] == 1 {
					queue = append(queue, f)
				}
			}
		}
	}
	if len(d.Order) < n {
		return d, false
	}
	for k := range used {
		if lin[k] && !used[k] {
			d.Obs = append(d.Obs, int32(k))
		}
	}
	return d, true
}

// Moments returns the mean and covariance of the directed prior with no
// inversion: the blocks' N(m, K) are copied, and each peeled variable
// x_v = Σ_j b_j x_j + d + ε_v (b_j = −a_j/a_v, d = (y − c)/a_v,
// Var ε_v = q = σ²/a_v²) adds
//
//	μ_v = Σ_j b_j μ_j + d,   Σ_{v,·} = Σ_j b_j Σ_{j,·},   Σ_vv = Σ_j b_j Σ_{j,v} + q,
//
// in O(n · edges) time. The covariance is returned as the full n×n
// row-major array (both triangles). logJac is −Σ_v log|a_v|: the defining
// factors' product is that constant times the prior density, since
// N(y; a_v x_v + r, σ²) = N(x_v; (y − r)/a_v, σ²/a_v²) / |a_v|. It checks
// done before each variable (O(edges · n) work) and returns
// openblas.ErrCanceled when it closes.
func (d Directed) Moments(l Linear, done <-chan struct{}) (mu, sigma []float64, logJac float64, err error) {
	mu, sigma, _, logJac, err = d.MomentsTangents(l, nil, done)
	return mu, sigma, logJac, err
}

// Tangent is the derivative of a Linear's numbers in one direction θ (a
// learned param): ∂a_k/∂θ (in Form's order), ∂c_k/∂θ, ∂y_k/∂θ, ∂σ_k²/∂θ
// of factor k, and ∂m/∂θ, ∂K/∂θ of block b (nil: 0).
type Tangent interface {
	Form(k int, dcoefs []float64) ([]float64, float64, float64, float64)
	Block(b int) (dmean []float64, dcov *mat.SymDense)
}

// Moments is the prior's moments (Moments) with their derivatives in
// each direction ts[t]: tan[t] holds ∂μ/∂θ_t then ∂Σ/∂θ_t (n + n×n),
// propagated in the same pass by differentiating each step (with ḃ_j =
// −(ȧ_j + b_j ȧ_v)/a_v),
//
//	μ̇_v = Σ_j (ḃ_j μ_j + b_j μ̇_j) + (ẏ − ċ)/a_v − d ȧ_v/a_v,
//	Σ̇_{v,·} = Σ_j (ḃ_j Σ_{j,·} + b_j Σ̇_{j,·}),
//	Σ̇_vv = Σ_j (ḃ_j Σ_{j,v} + b_j Σ̇_{j,v}) + σ̇²/a_v² − 2 q ȧ_v/a_v,
//
// each in O(n · edges) time more.
func (d Directed) MomentsTangents(l Linear, ts []Tangent, done <-chan struct{}) (mu, sigma []float64, tan [][]float64, logJac float64, err error) {
	n := l.NumVars()
	mu, sigma = make([]float64, n), make([]float64, n*n)
	tan = make([][]float64, len(ts))
	for t := range ts {
		tan[t] = make([]float64, n+n*n)
	}
	for b := range l.NumBlocks() {
		vars, mean, cov := l.Block(b)
		copyBlock(mu, sigma, vars, mean, cov)
		for t, tg := range ts {
			dm, dc := tg.Block(b)
			copyBlock(tan[t][:n], tan[t][n:], vars, dm, dc)
		}
	}
	var vars []int
	var coefs, dcoefs, db []float64
	for _, v32 := range d.Order {
		if openblas.Done(done) {
			return nil, nil, nil, 0, openblas.ErrCanceled
		}
		k := d.Def[v32]
		if k < 0 {
			continue
		}
		v := int(v32)
		var c, y, s float64
		vars, coefs, c, y, s = l.Form(int(k), vars[:0], coefs[:0])
		av, ev := 0.0, 0
		for e, u := range vars {
			if u == v {
				av, ev = coefs[e], e
			}
		}
		row := sigma[v*n : (v+1)*n]
		m := (y - c) / av
		for e, j := range vars {
			if j != v {
				b := -coefs[e] / av
				m += b * mu[j]
				floats.AddScaled(row, b, sigma[j*n:(j+1)*n])
			}
		}
		vv := s / (av * av)
		for e, j := range vars {
			if j != v {
				vv -= coefs[e] / av * row[j]
			}
		}
		// The tangents, before row v is written into column v (a
		// parent's row has 0 there, as the values read it).
		for t, tg := range ts {
			var dc, dy, ds float64
			dcoefs, dc, dy, ds = tg.Form(int(k), dcoefs[:0])
			dav := dcoefs[ev]
			dmu, dsig := tan[t][:n], tan[t][n:]
			drow := dsig[v*n : (v+1)*n]
			dm := (dy-dc)/av - (y-c)/av*dav/av
			db = db[:0]
			for e, j := range vars {
				bj, dbj := 0.0, 0.0
				if j != v {
					bj = -coefs[e] / av
					dbj = -(dcoefs[e] + bj*dav) / av
					dm += dbj*mu[j] + bj*dmu[j]
					floats.AddScaled(drow, dbj, sigma[j*n:(j+1)*n])
					floats.AddScaled(drow, bj, dsig[j*n:(j+1)*n])
				}
				db = append(db, dbj)
			}
			dvv := ds/(av*av) - 2*s/(av*av)*dav/av
			for e, j := range vars {
				if j != v {
					dvv += db[e]*row[j] - coefs[e]/av*drow[j]
				}
			}
			dmu[v] = dm
			for j, x := range drow {
				dsig[j*n+v] = x
			}
			dsig[v*n+v] = dvv
		}
		mu[v] = m
		for j, x := range row {
			sigma[j*n+v] = x
		}
		sigma[v*n+v] = vv
		logJac -= math.Log(math.Abs(av))
	}
	return mu, sigma, tan, logJac, nil
}

// copyBlock sets block N(mean, cov) over vars in mu and the row-major
// n×n sigma (mean or cov nil: left 0).
func copyBlock(mu, sigma []float64, vars []int, mean []float64, cov *mat.SymDense) {
	n := len(mu)
	for i, vi := range vars {
		if mean != nil {
			mu[vi] = mean[i]
		}
		if cov == nil {
			continue
		}
		for j, vj := range vars {
			sigma[vi*n+vj] = cov.At(i, j)
		}
	}
}

// Prior returns the joint Gaussian N(mean, cov) of a directed l (every
// variable defined by one linear-Gaussian factor or block, no
// observation): Direct, then Moments. It is the prior of the gold
// standards on a factor graph (exact quadrature, elliptical slice
// sampling).
func Prior(l Linear) (mean []float64, cov *mat.SymDense, err error) {
	mean, cov, _, _, err = PriorTangents(l, nil)
	return mean, cov, err
}

// PriorTangents is Prior with the derivatives of the mean and covariance
// in each direction ts[t] (MomentsTangents): dmean[t], dcov[t].
func PriorTangents(l Linear, ts []Tangent) (mean []float64, cov *mat.SymDense, dmean [][]float64, dcov []*mat.SymDense, err error) {
	d, ok := Direct(l)
	if !ok || len(d.Obs) > 0 {
		return nil, nil, nil, nil, fmt.Errorf("the linear-Gaussian factors are not a directed prior (one prior or conditional per variable, no cycle)")
	}
	mu, sigma, tan, _, err := d.MomentsTangents(l, ts, nil)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	n := l.NumVars()
	for _, t := range tan {
		dmean, dcov = append(dmean, t[:n:n]), append(dcov, mat.NewSymDense(n, t[n:]))
	}
	return mu, mat.NewSymDense(n, sigma), dmean, dcov, nil
}

// FactorizeBlock checks a Gaussian block N(mean, cov) over n variables
// (mean nil = 0: a covariance n×n, n > 0, a mean of length n, every number
// finite) and factorises its covariance (FactorizeJittered): the one check
// of a block for the IR's joint prior and infer/fgraph's blocks.
func FactorizeBlock(n int, mean []float64, cov *mat.SymDense, ch *mat.Cholesky) (*mat.SymDense, float64, error) {
	switch {
	case cov == nil || cov.SymmetricDim() != n || n == 0:
		return nil, 0, fmt.Errorf("block over %d variables needs a %d×%d covariance", n, n, n)
	case mean != nil && len(mean) != n:
		return nil, 0, fmt.Errorf("block mean has length %d, want %d", len(mean), n)
	case !allFinite(mean) || !finiteSym(cov):
		return nil, 0, fmt.Errorf("block mean or covariance is not finite")
	}
	c, delta, err := FactorizeJittered(cov, ch)
	if err != nil {
		return nil, 0, fmt.Errorf("block covariance over %d variables: %w", n, err)
	}
	return c, delta, nil
}

// allFinite reports whether every x is finite.
func allFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// finiteSym reports whether every element of c (its upper triangle) is
// finite.
func finiteSym(c *mat.SymDense) bool {
	n := c.SymmetricDim()
	for i := range n {
		for j := i; j < n; j++ {
			if x := c.At(i, j); math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}

// FactorizeJittered sets ch to the Cholesky factor of cov when it
// factorises, else of cov + δI with CholeskyJitter's δ, and returns the
// covariance factorised (a copy of cov, jittered when δ > 0) and δ.
func FactorizeJittered(cov *mat.SymDense, ch *mat.Cholesky) (*mat.SymDense, float64, error) {
	n := cov.SymmetricDim()
	c := mat.NewSymDense(n, nil)
	c.CopySym(cov)
	if ch.Factorize(c) {
		return c, 0, nil
	}
	_, delta, err := CholeskyJitter(cov)
	if err != nil {
		return nil, 0, err
	}
	for i := 0; i < n; i++ {
		c.SetSym(i, i, cov.At(i, i)+delta)
	}
	if !ch.Factorize(c) {
		return nil, 0, fmt.Errorf("not positive definite with jitter %g", delta)
	}
	return c, delta, nil
}
