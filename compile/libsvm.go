package compile

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// SparseInput is a libsvm file as the new inputs of a predict statement:
// its examples are scored against its labels by streaming.
type SparseInput struct {
	Path       string
	FS         fs.FS
	Rows, Cols int
}

// sparseVal is libsvm data: a file summarised by one streaming pass
// (stdlib.ScanLibSVM), never held in memory.
type sparseVal struct {
	path   string
	info   *stdlib.LibSVMInfo
	cols   int  // the features: the cols= argument, else the largest index
	labels bool // libsvm_labels(path): the label column, as spins
}

// libsvmCall reads libsvm(path, cols =) or libsvm_labels(path). The file is
// read once here to check every line (an error names file:line:col) and to
// count its examples and features.
func (c *compiler) libsvmCall(a *args, labels bool) val {
	full := c.resolve(c.filename(a.call.Pos()), a.str(0, ""))
	info, err := c.scanLibSVM(full)
	if err != nil {
		c.fail(a.call, "%v", err)
	}
	sp := &sparseVal{path: full, info: info, cols: info.Cols, labels: labels}
	if labels {
		if info.LabelErr != nil {
			c.fail(a.call, "%v", info.LabelErr)
		}
		return val{k: kSparse, shape: []int{info.Rows}, sparse: sp, dom: graph.Spin}
	}
	if cols := a.integer(1, 0); cols != 0 {
		if cols < info.Cols {
			c.fail(a.at(1), "libsvm %s has feature %d, more than cols = %d", full, info.Cols, cols)
		}
		sp.cols = cols
	}
	if sp.cols == 0 {
		c.fail(a.call, "libsvm %s has no features", full)
	}
	return val{k: kSparse, shape: []int{info.Rows, sp.cols}, sparse: sp}
}

// scanLibSVM summarises a file once per compilation.
func (c *compiler) scanLibSVM(path string) (*stdlib.LibSVMInfo, error) {
	if info, ok := c.libsvm[path]; ok {
		return info, nil
	}
	info, err := stdlib.ScanLibSVM(c.opt.FS, path)
	if err == nil {
		c.libsvm[path] = info
	}
	return info, err
}

// colsCall is cols(X): the number of columns of a matrix or libsvm data.
func (c *compiler) colsCall(a *args) val {
	x, _ := a.val(0)
	if (x.k != kNum && x.k != kSparse) || len(x.shape) != 2 {
		c.fail(a.at(0), "cols: expected a matrix or libsvm data, got %s", x.describe())
	}
	return numVal(float64(x.shape[1]))
}

// sparseMisuse is the message for libsvm data used outside the streamed
// plate form.
func (c *compiler) sparseMisuse(at ast.Node) {
	c.fail(at, "libsvm data `%s` is streamed from its file, not held in memory: use it as y[i] ~ probit(dot(X[i], w)) (or step, logistic) in a plate `for i in 0..len(X)`", c.text(at))
}

// streamPlate compiles a plate over libsvm data without unrolling it:
// `for i in 0..len(X) { y[i] ~ LIK(dot(X[i], w), ...) }` with y from
// libsvm_labels and X from libsvm. It reports false when the plate is not
// over libsvm data (it is then unrolled as usual).
func (c *compiler) streamPlate(s *ast.ForStmt) bool {
	if len(s.Body) != 1 || len(s.Vars) != 1 {
		return false
	}
	t, ok := s.Body[0].(*ast.TildeStmt)
	if !ok {
		return false
	}
	y, ok := c.sparseIndexed(t.LHS, s.Vars[0].Name)
	if !ok {
		return false
	}
	if !y.labels {
		c.fail(t.LHS, "the observations of a libsvm plate are libsvm_labels(path), not the features")
	}
	call, ok := t.Dist.(*ast.CallExpr)
	name := ""
	if ok {
		name = call.FunName()
	}
	if !streamable(name) {
		c.fail(t.Dist, "libsvm labels are read as spins −1/+1 (0/1 files map 0 → −1) and observed through a binary classification likelihood on spins (%s), e.g. y[i] ~ probit(dot(X[i], w))",
			strings.Join(streamableNames(), ", "))
	}
	x, lat := c.sparseDot(call, s.Vars[0].Name)
	c.checkStreamRange(s, y)
	if x.info.Rows != y.info.Rows {
		c.fail(t, "libsvm features have %d examples but the labels %d", x.info.Rows, y.info.Rows)
	}
	if len(c.streams[lat]) > 0 || len(c.sites[lat]) > 0 || c.fg.idxOf[lat] > 0 || len(c.batches[lat]) > 0 {
		c.fail(s, "`%s` already has likelihood factors; a latent with libsvm sites takes one libsvm plate and nothing else", c.m.Graph.Latents[lat].Name)
	}
	c.addStream(s, t, call, x, y, lat)
	return true
}

// sparseIndexed reports whether e is Y[i] with Y libsvm data and i the
// plate variable.
func (c *compiler) sparseIndexed(e ast.Expr, loopVar string) (*sparseVal, bool) {
	ix, ok := e.(*ast.IndexExpr)
	if !ok || len(ix.Indices) != 1 {
		return nil, false
	}
	id, ok := ix.X.(*ast.Ident)
	if !ok {
		return nil, false
	}
	b := c.resolved(id)
	if b == nil || b.kind != bData || b.v.k != kSparse {
		return nil, false
	}
	if i, ok := ix.Indices[0].(*ast.Ident); !ok || i.Name != loopVar {
		c.fail(ix.Indices[0], "libsvm data is indexed by the plate variable only: %s[%s]", id.Name, loopVar)
	}
	return b.v.sparse, true
}

// sparseDot checks the first argument dot(X[i], w) (or dot(w, X[i])) of a
// libsvm likelihood and returns X and the latent index of w.
func (c *compiler) sparseDot(call *ast.CallExpr, loopVar string) (*sparseVal, int) {
	bad := func(at ast.Node) {
		c.fail(at, "the first argument of a likelihood on libsvm data is dot(X[i], w): X from libsvm(path), w a whole real latent")
	}
	if len(call.Args) == 0 {
		bad(call)
	}
	d, ok := call.Args[0].(*ast.CallExpr)
	if !ok || d.FunName() != "dot" || len(d.Args) != 2 || len(d.Named) != 0 {
		bad(call.Args[0])
	}
	xe, we := d.Args[0], d.Args[1]
	if _, ok := xe.(*ast.IndexExpr); !ok {
		xe, we = we, xe
	}
	x, ok := c.sparseIndexed(xe, loopVar)
	if !ok || x.labels {
		bad(d)
	}
	wid, ok := we.(*ast.Ident)
	if !ok {
		bad(we)
	}
	b := c.resolved(wid)
	ok = b != nil
	if ok && b.poisoned {
		panic(abort{}) // its declaration failed, with an error there
	}
	if !ok || b.kind != bLatent {
		bad(we)
	}
	l := &c.m.Graph.Latents[b.lat]
	if l.Size() != x.cols || len(l.Shape) != 1 {
		c.fail(we, "`%s` has %d elements but the libsvm data has %d features; declare it real[cols(X)]", wid.Name, l.Size(), x.cols)
	}
	return x, b.lat
}

// checkStreamRange requires the plate to run over every example: 0..len(y).
func (c *compiler) checkStreamRange(s *ast.ForStmt, y *sparseVal) {
	r, ok := s.Iter.(*ast.RangeExpr)
	if !ok {
		c.fail(s.Iter, "a plate over libsvm data runs over all its examples: for i in 0..len(y)")
	}
	lo := c.intOf(r.Lo, c.eval(r.Lo), "range start")
	hi := c.intOf(r.Hi, c.eval(r.Hi), "range end")
	if lo != 0 || hi != y.info.Rows {
		c.fail(s.Iter, "a plate over libsvm data runs over all its %d examples (0..len(y)), not %d..%d", y.info.Rows, lo, hi)
	}
}

// addStream records the plate's sites on the latent's block.
func (c *compiler) addStream(s *ast.ForStmt, t *ast.TildeStmt, call *ast.CallExpr, x, y *sparseVal, lat int) {
	b, _ := stdlib.Lookup(stdlib.Distribution, call.FunName())
	k, _ := factor.Find(b.Name, factor.Likelihood)
	lk := k.(factor.LikelihoodKind)
	a := c.bind(call, b)
	lik := c.newSite(a, lk, paramIndex(b, lk.Projection()))
	c.streams[lat] = append(c.streams[lat], graph.StreamSites{Lik: lik, Data: x.path, Labels: y.path,
		FS: c.opt.FS, Rows: y.info.Rows, Cols: x.cols, Pos: t.Pos(),
		Label: fmt.Sprintf("%s(%s) over %d examples of %s", b.Name, c.text(t.LHS), y.info.Rows, y.path)})
}

// checkStreamInfer restricts an infer line on a model with libsvm sites to
// what the streaming engine runs: ep with divergence kl, a sequential
// schedule, family = factorized (the default there; full is refused),
// an iid normal prior, closed-form moments for probit and step and
// Gauss–Hermite on the projection for logistic.
func (c *compiler) checkStreamInfer(s *ast.InferStmt, spec *InferSpec, given map[string]ast.Node) {
	for _, b := range c.m.Blocks() {
		if len(b.Streams) == 0 {
			continue
		}
		if len(b.Sites) > 0 || len(b.Batches) > 0 {
			c.fail(s, "`%s` has libsvm sites and other likelihood factors; a latent with libsvm sites takes nothing else", b.Name)
		}
		if spec.Method != infer.MethodEP {
			c.fail(s.Method, "`%s` has libsvm sites, which are streamed from disk; only infer ep runs them (%s needs the data in memory)", b.Name, spec.Method)
		}
		if _, ok := spec.Settings.Divergence.(infer.KL); !ok {
			c.fail(s, "libsvm sites run under divergence kl (ADF / EP), not %v", spec.Settings.Divergence)
		}
		if spec.Family == infer.FamilyFull && given["family"] != nil {
			c.fail(given["family"], "family = full on libsvm data needs a %d×%d covariance and every site in memory; libsvm sites are streamed with family = factorized", b.N, b.N)
		}
		spec.Family = infer.FamilyFactorized
		if spec.Settings.Schedule != infer.Sequential {
			c.fail(given["schedule"], "libsvm sites are visited in file order: schedule = sequential")
		}
		if !b.Prior.Kind.Independent() {
			c.fail(s, "libsvm sites need an independent normal prior on `%s`, e.g. ~ normal(0, 1); it has %s", b.Name, b.Prior.Kind.Name())
		}
		c.streamApprox(s, spec, b, given["approx"] != nil)
	}
}

// streamApprox sets the moment scheme of streamed sites: exact (closed
// forms) for probit and step, gh on the projection for logistic.
func (c *compiler) streamApprox(s *ast.InferStmt, spec *InferSpec, b *graph.Block, given bool) {
	for _, st := range b.Streams {
		_, closed := st.Lik.(factor.Tilted)
		switch {
		case !closed && !given:
			spec.Approx = infer.Scheme{Kind: infer.SchemeGH, N: infer.DefaultGHNodes}
		case !closed && spec.Approx.Kind != infer.SchemeGH:
			c.fail(s, "%s sites on libsvm data integrate their projection with approx = gh(n = 32)", st.Lik.Name())
		case spec.Approx.Kind != infer.SchemeExact && spec.Approx.Kind != infer.SchemeGH:
			c.fail(s, "libsvm sites use closed-form moments or approx = gh on the projection, not %s", spec.Approx)
		}
	}
}

// sparsePredict is predict NAME = predictive(w, Xt) with Xt libsvm data:
// the examples of Xt's file are scored against its labels.
func (c *compiler) sparsePredict(s *ast.PredictStmt, a *args, bi int, xv val) {
	blk := c.m.Blocks()[bi]
	if len(blk.Streams) == 0 {
		c.fail(a.at(1), "predictive on libsvm data needs `%s` to have libsvm sites", blk.Name)
	}
	if xv.sparse.labels {
		c.fail(a.at(1), "predictive takes the features libsvm(path), not libsvm_labels")
	}
	if xv.sparse.info.LabelErr != nil {
		c.fail(a.at(1), "predictive scores against the file's labels: %v", xv.sparse.info.LabelErr)
	}
	if xv.sparse.info.Cols > blk.N {
		c.fail(a.at(1), "predictive: %s has feature %d, `%s` has %d elements", xv.sparse.path, xv.sparse.info.Cols, blk.Name, blk.N)
	}
	for _, p := range c.m.Predicts {
		if p.Name == s.Name.Name {
			c.fail(s.Name, "predict `%s` declared twice", s.Name.Name)
		}
	}
	st := blk.Streams[0]
	c.m.Predicts = append(c.m.Predicts, &PredictSpec{Name: s.Name.Name, Block: bi, Pos: s.Pos(), Lik: st.Lik,
		Sparse: &SparseInput{Path: xv.sparse.path, FS: c.opt.FS, Rows: xv.sparse.info.Rows, Cols: xv.sparse.info.Cols}})
}

// streamable reports whether the likelihood name is a binary classifier
// (its ClassProb rule answers) on spins, as the streaming engine reads
// libsvm labels (stdlib.SpinLabels: 0/1 files map 0 → −1), so that a
// classifier on 0/1 labels (bernoulli_logit) is refused, not fed −1.
func streamable(name string) bool {
	k, err := factor.Find(name, factor.Likelihood)
	if err != nil {
		return false
	}
	cp, ok := k.(factor.ClassProb)
	if !ok {
		return false
	}
	if _, ok = cp.Prob(0, 1); !ok {
		return false
	}
	s, ok := k.(factor.Site)
	return ok && s.CheckY(-1) == nil
}

// streamableNames lists the likelihoods streamable accepts.
func streamableNames() []string {
	var names []string
	for _, n := range factor.Names(factor.Likelihood) {
		if streamable(n) {
			names = append(names, n)
		}
	}
	return names
}
