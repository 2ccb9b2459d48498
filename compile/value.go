package compile

import (
	"fmt"
	"math"
	"strings"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/ad"
)

// kind is the kind of an evaluated expression.
type kind int

const (
	kNum    kind = iota // numbers: scalar (shape nil), vector, matrix
	kStr                // a string
	kBool               // a boolean (scalar)
	kGraph              // a graph value
	kKernel             // a kernel expression
	kSym                // an expression of latent variables
	kList               // a list of strings (csv columns=)
	kDist               // a divergence/schedule/approx spec inside infer options
	kSparse             // libsvm data streamed from a file (libsvm.go)
)

var kindNames = [...]string{"number", "string", "bool", "graph", "kernel", "latent expression", "list", "spec", "libsvm data"}

func (k kind) String() string { return kindNames[k] }

// val is a value during compilation.
type val struct {
	k      kind
	shape  []int     // kNum, kSym: nil for a scalar
	num    []float64 // kNum: row-major; kBool: 0/1 in num[0]
	str    string    // kStr
	strs   []string  // kList
	g      *graphVal // kGraph
	kern   *graph.KernelSpec
	sym    *sym
	dom    graph.Domain // kNum: the declared domain of data (Real by default)
	src    *srcInfo     // where the numbers came from (csv rows, learned params)
	sparse *sparseVal   // kSparse
}

// graphVal is a graph-valued data item: a simple graph (geodesic_dome,
// grid) or a libDAI factor graph.
type graphVal struct {
	n     int
	edges [][2]int
	fg    *graph.Graph // libdai() only
}

// srcInfo remembers where numbers came from, when it matters: a csv file,
// so that a bad element can be reported as file:line; or, while learning
// differentiates, the learned params — tan, the numbers' tangents in them
// (tangents.go: val.tan), nil otherwise. (One pointer for both keeps val
// at its size class outside learning.)
type srcInfo struct {
	path     string
	firstRow int      // file line of element 0 (2: after the header)
	cols     []string // the header names of the columns read (a matrix)
	tan      *tangents
}

// fromFile reports whether v's numbers were read from a csv file.
func (v *val) fromFile() bool { return v.src != nil && v.src.path != "" }

// sym is an expression of latent elements. ids lists the graph variable
// ids of a pure selection (x, x[i], x[b]) and is nil once the expression is
// transformed. For an expression of one latent (lat ≥ 0), f evaluates its
// elements on jets of the latent's elements (real latents only). aff, when
// non-nil, gives element k of a transformed expression as an affine form
// over graph variables (affine.go; forms() covers selections too); an
// expression over several latents (lat = −1) has aff and no f.
type sym struct {
	lat int
	ids []int
	f   func(w []ad.Jet) []ad.Jet // nil for a selection: see jets
	// sel marks a selection of a real latent whose element 0 is graph
	// variable first: its jets are w[ids[k] − first], made on demand (a
	// plate selects x[t] at every step and rarely needs them).
	sel   bool
	first int
	exprs bool // true when f is not a pure selection
	aff   func(k int) lin
	lats  []int // lat = −1: the latents involved
}

// jets is the jet closure of the sym: f, or a selection's; nil for a
// discrete latent.
func (s *sym) jets() func(w []ad.Jet) []ad.Jet {
	if s.f != nil || !s.sel {
		return s.f
	}
	ids, first := s.ids, s.first
	return func(w []ad.Jet) []ad.Jet {
		out := make([]ad.Jet, len(ids))
		for k, id := range ids {
			out[k] = w[id-first]
		}
		return out
	}
}

func numVal(x float64) val { return val{k: kNum, num: []float64{x}} }

func vecVal(x []float64) val { return val{k: kNum, shape: []int{len(x)}, num: x} }

func boolVal(b bool) val {
	if b {
		return val{k: kBool, num: []float64{1}}
	}
	return val{k: kBool, num: []float64{0}}
}

func (v val) size() int {
	n := 1
	for _, s := range v.shape {
		n *= s
	}
	return n
}

func (v val) isScalar() bool { return (v.k == kNum || v.k == kBool) && len(v.shape) == 0 }

// describe renders a value's type for messages: "number", "vector of 5", "matrix 40×2".
func (v val) describe() string {
	if v.k == kSparse {
		return fmt.Sprintf("libsvm data %s", shapeStr(v.shape))
	}
	if v.k != kNum && v.k != kSym {
		return v.k.String()
	}
	prefix := ""
	if v.k == kSym {
		prefix = "latent "
	}
	switch len(v.shape) {
	case 0:
		return prefix + "scalar"
	case 1:
		return fmt.Sprintf("%svector of %d", prefix, v.shape[0])
	case 2:
		return fmt.Sprintf("%smatrix %d×%d", prefix, v.shape[0], v.shape[1])
	}
	return prefix + "array " + shapeStr(v.shape)
}

func shapeStr(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// fmtNum renders a number for messages: integers without a decimal point.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%g", x)
}

// export turns an evaluated data/param value into the Model's Value.
func (v val) export(pos ast.Pos) Value {
	out := Value{Pos: pos, Domain: v.dom}
	switch v.k {
	case kNum, kBool:
		out.Shape = append([]int(nil), v.shape...)
		out.Num = v.num
		if v.src != nil && len(v.shape) == 2 && len(v.src.cols) == v.shape[1] {
			out.Columns = v.src.cols
		}
	case kStr:
		out.Str = v.str
	case kGraph:
		out.Nodes = v.g.n
		out.Edges = v.g.edges
		out.Graph = v.g.fg
	case kList:
		out.Str = strings.Join(v.strs, ",")
	case kSparse:
		out.Shape = append([]int(nil), v.shape...)
		out.Str = v.sparse.path
	}
	return out
}

func graphFromStdlib(g *stdlib.Graph) *graphVal {
	return &graphVal{n: g.N, edges: g.Edges}
}

// graphFromFactorGraph makes a graph value of a libDAI factor graph: its
// nodes are the variables, its edges the variable pairs of its two-variable
// factors (in factor order, each pair once).
func graphFromFactorGraph(fg *graph.Graph) *graphVal {
	gv := &graphVal{n: len(fg.Vars), fg: fg}
	seen := map[[2]int]bool{}
	for _, f := range fg.Factors() {
		if len(f.Vars) != 2 || f.Vars[0] == f.Vars[1] {
			continue
		}
		e := [2]int{min(f.Vars[0], f.Vars[1]), max(f.Vars[0], f.Vars[1])}
		if !seen[e] {
			seen[e] = true
			gv.edges = append(gv.edges, e)
		}
	}
	return gv
}
