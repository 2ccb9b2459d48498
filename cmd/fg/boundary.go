package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/cmd/fg/internal/present"
	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
)

// boundaryPred names the prediction fg run adds for the decision-boundary
// plot; it is removed from the table, JSON and CSV.
const boundaryPred = "_fg_boundary_grid"

// boundaryGrid is the number of grid points per axis.
const boundaryGrid = 61

// classifies reports whether a site's likelihood is a classifier over ±1
// labels whose p(y = +1) the engines predict (its factor.ClassProb rule
// gives class probabilities).
func classifies(lik graph.Kind) bool {
	c, ok := lik.(factor.ClassProb)
	if !ok {
		return false
	}
	_, ok = c.Prob(0, 1)
	return ok
}

// addBoundaryGrid looks for a classification block with 2-D inputs — a
// GP/TP prior over 2-column inputs X, or a linear model whose projections
// have two varying coordinates (plus possibly a constant intercept column) —
// and adds a predict spec on a grid over the training points, so every
// result carries p(y = +1) on it. It returns nil when there is none.
func addBoundaryGrid(cm *compile.Model) *present.Boundary {
	if cm == nil {
		return nil
	}
	for bi, blk := range cm.Blocks() {
		pts, sites := blockPoints(blk)
		if len(pts) == 0 {
			continue
		}
		b, xnew := gridFor(pts)
		if xnew == nil {
			continue
		}
		b.XLabel, b.YLabel = axisName(cm, pts, xnew.free[0]), axisName(cm, pts, xnew.free[1])
		s0 := blk.Sites[sites[0]]
		for _, si := range sites {
			b.Labels = append(b.Labels, blk.Sites[si].Y)
			b.Factors = append(b.Factors, blk.Sites[si].Label)
		}
		cm.Predicts = append(cm.Predicts, &compile.PredictSpec{Name: boundaryPred, Block: bi,
			Xnew: xnew.embed(), Lik: s0.Lik, Display: true, Pos: blk.Pos})
		return b
	}
	return nil
}

// point is a training input in the block's own coordinates (a row of X, or
// a projection vector).
type point []float64

// blockPoints returns the inputs of the block's classification sites and
// their site indices, or nil when the block is not a 2-D classifier.
func blockPoints(blk *graph.Block) ([]point, []int) {
	var pts []point
	var idx []int
	for i, s := range blk.Sites {
		if !classifies(s.Lik) {
			return nil, nil
		}
		switch {
		case s.Proj != nil:
			pts = append(pts, point(s.Proj))
		case blk.Prior.X != nil && s.Index >= 0 && s.Index < rows(blk.Prior.X):
			pts = append(pts, point(mat.Row(nil, s.Index, blk.Prior.X)))
		default:
			return nil, nil
		}
		idx = append(idx, i)
	}
	return pts, idx
}

func rows(m *mat.Dense) int {
	r, _ := m.Dims()
	return r
}

// gridSpec maps 2-D grid points back to the block's input space: the two
// varying coordinates are free, the others fixed at their constant value.
type gridSpec struct {
	dim    int
	free   [2]int
	fixed  []float64
	xs, ys []float64
}

func (g *gridSpec) embed() *mat.Dense {
	x := mat.NewDense(len(g.xs)*len(g.ys), g.dim, nil)
	k := 0
	for _, y := range g.ys {
		for _, xv := range g.xs {
			row := append([]float64(nil), g.fixed...)
			row[g.free[0]], row[g.free[1]] = xv, y
			x.SetRow(k, row)
			k++
		}
	}
	return x
}

// gridFor finds exactly two non-constant coordinates among the points and
// lays a grid over their range padded by 10%.
func gridFor(pts []point) (*present.Boundary, *gridSpec) {
	dim := len(pts[0])
	var free []int
	fixed := make([]float64, dim)
	for j := 0; j < dim; j++ {
		lo, hi := colRange(pts, j)
		if lo != hi {
			free = append(free, j)
		}
		fixed[j] = lo
	}
	if len(free) != 2 {
		return nil, nil
	}
	g := &gridSpec{dim: dim, free: [2]int{free[0], free[1]}, fixed: fixed}
	g.xs = axis(colRange(pts, free[0]))
	g.ys = axis(colRange(pts, free[1]))
	b := &present.Boundary{Xs: g.xs, Ys: g.ys, Pred: boundaryPred}
	for _, p := range pts {
		b.Points = append(b.Points, [2]float64{p[free[0]], p[free[1]]})
	}
	return b, g
}

func colRange(pts []point, j int) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = math.Min(lo, p[j]), math.Max(hi, p[j])
	}
	return lo, hi
}

func axis(lo, hi float64) []float64 {
	pad := 0.1 * (hi - lo)
	lo, hi = lo-pad, hi+pad
	out := make([]float64, boundaryGrid)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(boundaryGrid-1)
	}
	return out
}

// axisName names coordinate j of the points after the data matrix they are
// rows of: its csv header name, else NAME[·, j]; "input j" when no data
// matrix holds them all.
func axisName(cm *compile.Model, pts []point, j int) string {
	names := slices.Sorted(maps.Keys(cm.Data))
	for _, name := range names {
		v := cm.Data[name]
		if len(v.Shape) != 2 || v.Shape[1] != len(pts[0]) || !holdsRows(v, pts) {
			continue
		}
		if len(v.Columns) == v.Shape[1] {
			return v.Columns[j]
		}
		return fmt.Sprintf("%s[·, %d]", name, j)
	}
	return "input " + strconv.Itoa(j)
}

// holdsRows reports whether every point is a row of the matrix v.
func holdsRows(v compile.Value, pts []point) bool {
	d := v.Shape[1]
	for _, p := range pts {
		found := false
		for r := 0; r < v.Shape[0] && !found; r++ {
			found = slices.Equal(v.Num[r*d:(r+1)*d], p)
		}
		if !found {
			return false
		}
	}
	return true
}
