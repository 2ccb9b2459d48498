package netjoint

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// ErrNotConjugate is wrapped by the fits when a log density is not of the
// conjugate form in the free variables.
var ErrNotConjugate = errors.New("not conjugate")

// fitTol is the largest misfit, relative to 1 + max |log f| at the points,
// that a fit accepts: round-off for a conjugate factor (about 1e-14),
// orders of magnitude above it otherwise.
const fitTol = 1e-9

// Contrib is a factor, or a sum of factors, as a function of the variables
// that are integrated in closed form (the free ones) with every other
// variable fixed: one of
//
//	Var ≥ 0:        ⟨Eta, T(θ_Var)⟩ + C   (a non-Gaussian variable)
//	len(Gauss) > 0: −½ xᵀ P x + Bᵀ x + C  (x the Gaussian variables Gauss)
//	otherwise:      C                      (no free variable).
//
// A Gaussian contribution also carries its quadratic as least-squares
// rows (QuadRows) when it has them, for the square-root information form
// (RootBand): Rows (row-major, len(Gauss) columns) and RowB with
// Σ_r a_r a_rᵀ = P and Σ_r a_r b_r = B; nil when P is not positive
// semidefinite or B has a part P does not reach.
type Contrib struct {
	Var        int
	Eta        []float64
	Gauss      []int
	P, B       []float64 // P row-major len(Gauss)²
	C          float64
	Rows, RowB []float64
}

// FitFactor fits factor fi in the free variables it depends on at x.
// It fails (wrapping ErrNotConjugate) when the factor couples a
// non-Gaussian free variable with another free variable or is not of the
// conjugate form. x is restored before it returns.
func (j *Joint) FitFactor(fi int, free []bool, x []float64) (Contrib, error) {
	var vs []int
	nonGauss := -1
	for _, v := range j.ActiveVars(fi, x) {
		if !free[v] {
			continue
		}
		vs = append(vs, v)
		if j.Net.Vars[v].Family != graph.Gaussian {
			nonGauss = v
		}
	}
	fs := []int{fi}
	switch {
	case len(vs) == 0:
		return Contrib{Var: -1, C: j.FactorLog(fi, x)}, nil
	case nonGauss >= 0 && len(vs) > 1:
		return Contrib{}, fmt.Errorf("%s couples %s with %s: %w", j.Net.Factors[fi].Label,
			j.Net.Vars[nonGauss].Name, j.Net.Vars[other(vs, nonGauss)].Name, ErrNotConjugate)
	case nonGauss >= 0:
		eta, c, err := j.FitFamily(fs, nonGauss, x)
		return Contrib{Var: nonGauss, Eta: eta, C: c}, err
	}
	p, b, c, err := j.FitQuadratic(fs, vs, x)
	con := Contrib{Var: -1, Gauss: vs, P: p, B: b, C: c}
	if err == nil {
		con.Rows, con.RowB, _ = QuadRows(p, b, len(vs), 1+math.Abs(c))
	}
	return con, err
}

func other(vs []int, v int) int {
	for _, u := range vs {
		if u != v {
			return u
		}
	}
	return v
}

// probe is a fixed sequence of numbers in (−1, 1) (a Weyl sequence), the
// points at which the fits evaluate: deterministic and in general position.
func probe(i int) float64 {
	const g = 0.6180339887498949
	f := float64(i+1) * g
	return 2*(f-math.Floor(f)) - 1
}

// design is the least-squares problem of FitFamily for one family and
// dimension: the points θ_i of the support, the rows a_i = [T(θ_i), 1], and
// the least-squares solution operator L = (AᵀA)⁻¹Aᵀ from the QR
// factorisation of A (a solve per column, no inverse of AᵀA is formed),
// so that a fit is two small products. Designs are built once per process
// and never modified (designs).
type design struct {
	points [][]float64
	a, l   *mat.Dense
}

// designs holds the design of each (family, dimension), shared by every
// Joint and goroutine.
var designs sync.Map

type designKey struct {
	fam graph.Family
	dim int
}

// designFor returns (building it on first use) the design of v's family:
// Len + 4 points θ = FromU(2·probe) of the support.
func designFor(nv graph.NetVar) *design {
	key := designKey{nv.Family, nv.Dim}
	if d, ok := designs.Load(key); ok {
		return d.(*design)
	}
	m := families.For(nv.Family, nv.Dim).Len() + 1
	np := m + 3
	d := &design{a: mat.NewDense(np, m, nil)}
	u := make([]float64, UDim(nv))
	t := make([]float64, m-1)
	for i := 0; i < np; i++ {
		for k := range u {
			u[k] = 2 * probe(i*len(u)+k)
		}
		th := make([]float64, width(nv))
		FromU(nv.Family, u, th)
		suffStats(nv.Family, th, t)
		for k, tk := range t {
			d.a.Set(i, k, tk)
		}
		d.a.Set(i, m-1, 1)
		d.points = append(d.points, th)
	}
	var qr mat.QR
	qr.Factorize(d.a)
	var id mat.Dense
	id.CloneFrom(eye(np))
	d.l = &mat.Dense{}
	if err := qr.SolveTo(d.l, false, &id); err != nil {
		panic(fmt.Sprintf("netjoint: the %s design is singular: %v", nv.Family, err))
	}
	got, _ := designs.LoadOrStore(key, d)
	return got.(*design)
}

// eye is the n×n identity.
func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// FitFamily fits Σ_{f ∈ fs} log f as ⟨η, T(θ_v)⟩ + c by least squares at
// the points of v's design and checks the misfit.
func (j *Joint) FitFamily(fs []int, v int, x []float64) ([]float64, float64, error) {
	nv := j.Net.Vars[v]
	th := j.Value(v, x)
	saved := append([]float64(nil), th...)
	defer copy(th, saved)
	d := designFor(nv)
	m, np := d.l.Dims()
	if cap(j.fitBuf) < np {
		j.fitBuf = make([]float64, np)
	}
	g := j.fitBuf[:np]
	scale := 1.0
	for i, pt := range d.points {
		copy(th, pt)
		gi := j.LogOf(fs, x)
		if math.IsNaN(gi) || math.IsInf(gi, 0) {
			return nil, 0, fmt.Errorf("%s: log density %v at %v: %w", nv.Name, gi, th, ErrNotConjugate)
		}
		g[i] = gi
		scale = math.Max(scale, 1+math.Abs(gi))
	}
	coef := make([]float64, m)
	for k := range coef {
		coef[k] = floats.Dot(d.l.RawRowView(k), g)
	}
	for i := 0; i < np; i++ {
		if r := floats.Dot(d.a.RawRowView(i), coef) - g[i]; !(math.Abs(r) <= fitTol*scale) {
			return nil, 0, fmt.Errorf("%s (%s): log density not linear in its sufficient statistics: %w", nv.Name, nv.Family, ErrNotConjugate)
		}
	}
	return coef[:m-1], coef[m-1], nil
}

// FitQuadratic fits Σ_{f ∈ fs} log f as −½ xᵀPx + bᵀx + c in the Gaussian
// variables vs from its values at 0, ±e_i and e_i + e_j (exact for a
// quadratic), and checks it at two more points.
func (j *Joint) FitQuadratic(fs, vs []int, x []float64) (p, b []float64, c float64, err error) {
	n := len(vs)
	saved := make([]float64, n)
	for i, v := range vs {
		saved[i] = x[j.off[v]]
	}
	defer func() {
		for i, v := range vs {
			x[j.off[v]] = saved[i]
		}
	}()
	scale := 1.0
	eval := func(d []float64) float64 {
		for i, v := range vs {
			x[j.off[v]] = d[i]
		}
		g := j.LogOf(fs, x)
		if math.IsNaN(g) || math.IsInf(g, 0) {
			err = fmt.Errorf("log density %v: %w", g, ErrNotConjugate)
			g = 0
		}
		scale = math.Max(scale, 1+math.Abs(g))
		return g
	}
	d := make([]float64, n)
	c = eval(d)
	p, b = make([]float64, n*n), make([]float64, n)
	for i := range vs {
		d[i] = 1
		gp := eval(d)
		d[i] = -1
		gm := eval(d)
		d[i] = 0
		b[i] = (gp - gm) / 2
		p[i*n+i] = -(gp + gm - 2*c)
	}
	for i := range vs {
		for k := i + 1; k < n; k++ {
			d[i], d[k] = 1, 1
			gik := eval(d)
			d[i], d[k] = 0, 0
			pik := -(gik - c - b[i] - b[k]) - (p[i*n+i]+p[k*n+k])/2
			p[i*n+k], p[k*n+i] = pik, pik
		}
	}
	for t := 0; t < 2; t++ {
		for i := range d {
			d[i] = 1.5 * probe(t*n+i+7)
		}
		if math.Abs(eval(d)-quad(p, b, c, d)) > fitTol*scale {
			return nil, nil, 0, fmt.Errorf("%s: log density not quadratic: %w", j.Net.Vars[vs[0]].Name, ErrNotConjugate)
		}
	}
	return p, b, c, err
}

// quad is −½ dᵀPd + bᵀd + c.
func quad(p, b []float64, c float64, d []float64) float64 {
	n := len(d)
	s := c
	for i := range d {
		s += b[i] * d[i]
		for k := range d {
			s -= 0.5 * p[i*n+k] * d[i] * d[k]
		}
	}
	return s
}
