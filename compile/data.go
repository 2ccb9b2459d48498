package compile

import (
	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/stdlib"
)

// dataCall evaluates a data loader or generator.
func (c *compiler) dataCall(a *args) val {
	switch a.b.Name {
	case "csv":
		return c.csvCall(a)
	case "libdai":
		return c.libdaiCall(a)
	case "libsvm", "libsvm_labels":
		return c.libsvmCall(a, a.b.Name == "libsvm_labels")
	case "cols":
		return c.colsCall(a)
	case "geodesic_dome":
		return val{k: kGraph, g: graphFromStdlib(stdlib.GeodesicDome())}
	case "grid":
		g, err := stdlib.Grid(a.integer(0, 0), a.integer(1, 0), a.boolean(2, false))
		if err != nil {
			c.fail(a.call, "%v", err)
		}
		return val{k: kGraph, g: graphFromStdlib(g)}
	case "random_normal":
		seed := a.integer(0, 0)
		if seed < 0 {
			c.fail(a.at(0), "random_normal: seed must be a non-negative integer, got %d", seed)
		}
		x, err := stdlib.RandomNormal(uint64(seed), a.integer(1, 0), a.num(2, 0), a.num(3, 1))
		if err != nil {
			c.fail(a.call, "%v", err)
		}
		return vecVal(x)
	case "rows":
		return c.rowsCall(a)
	case "nodes":
		g, _ := a.val(0)
		if g.k != kGraph {
			c.fail(a.at(0), "nodes: expected a graph, got %s", g.describe())
		}
		return numVal(float64(g.g.n))
	case "len":
		x, _ := a.val(0)
		switch {
		case x.k == kGraph:
			return numVal(float64(len(x.g.edges)))
		case x.k == kList:
			return numVal(float64(len(x.strs)))
		case x.k == kSparse:
			return numVal(float64(x.shape[0]))
		case (x.k == kNum || x.k == kSym) && len(x.shape) > 0:
			return numVal(float64(x.shape[0]))
		}
		c.fail(a.at(0), "len: expected a vector, matrix or graph, got %s", x.describe())
	}
	c.fail(a.call, "unsupported data function %s", a.b.Name)
	return val{}
}

// csvCall reads csv(path, column=, columns=, exclude=, standardize=,
// intercept=, normalize=). The path is relative to the model file, unless the data item
// being defined has an Options.Data override.
func (c *compiler) csvCall(a *args) val {
	p := a.str(0, "")
	full := c.resolve(c.filename(a.call.Pos()), p)
	override := ""
	if c.curData != "" {
		// dataUsed's keys are the csv data items (the names --data accepts).
		if _, seen := c.dataUsed[c.curData]; !seen {
			c.dataUsed[c.curData] = false
		}
		if o, ok := c.opt.Data[c.curData]; ok {
			p, full = o, o
			c.dataUsed[c.curData] = true
			override = c.override("data", c.curData, o) + ": "
		}
	}
	if c.curData != "" {
		if c.m.CSVFiles == nil {
			c.m.CSVFiles = map[string]string{}
		}
		c.m.CSVFiles[c.curData] = full
	}
	opt := stdlib.CSVOptions{Column: a.str(1, ""), Columns: a.strs(2), Exclude: a.strs(3),
		Standardize: a.boolean(4, false), Intercept: a.boolean(5, false), Normalize: a.boolean(6, false)}
	m, err := stdlib.LoadCSV(c.opt.FS, full, opt)
	if err != nil {
		c.fail(a.call, "%s%v", override, err)
	}
	v := val{k: kNum, num: m.Data, src: &srcInfo{path: full, firstRow: 2, cols: m.Names}}
	if m.IsVector() {
		v.shape = []int{m.Rows}
	} else {
		v.shape = []int{m.Rows, m.Cols}
	}
	_ = p
	return v
}

// libdaiCall reads a libDAI factor graph relative to the model file.
func (c *compiler) libdaiCall(a *args) val {
	p := c.resolve(c.filename(a.call.Pos()), a.str(0, ""))
	r, err := safefile.Open(c.opt.FS, p, safefile.MaxLibDAI)
	if err != nil {
		c.fail(a.call, "libdai %s: %v", p, notExist(err))
	}
	defer r.Close()
	fg, perr := parseLibDAI(c.fset, p, r)
	if perr != nil {
		c.errs = append(c.errs, perr)
		panic(abort{})
	}
	return val{k: kGraph, g: graphFromFactorGraph(fg)}
}

// rowsCall is rows(M, idx).
func (c *compiler) rowsCall(a *args) val {
	m, _ := a.val(0)
	iv, _ := a.val(1)
	if m.k != kNum || len(m.shape) == 0 || len(m.shape) > 2 {
		c.fail(a.at(0), "rows: expected a matrix or vector, got %s", m.describe())
	}
	if iv.k != kNum || len(iv.shape) > 1 {
		c.fail(a.at(1), "rows: expected an index vector, got %s", iv.describe())
	}
	idx := make([]int, len(iv.num))
	for k, x := range iv.num {
		idx[k] = c.intOf(a.at(1), numVal(x), "rows index")
	}
	cols := 0
	if len(m.shape) == 2 {
		cols = m.shape[1]
	}
	out, err := stdlib.Rows(m.num, m.shape[0], cols, idx)
	if err != nil {
		c.fail(a.at(1), "%v", err)
	}
	shape := []int{len(idx)}
	if cols > 0 {
		shape = append(shape, cols)
	}
	return val{k: kNum, shape: shape, num: out}
}
