package compile

import (
	"bufio"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// fitcHint points a too-large dense gp prior (kind k) to the sparse one.
func fitcHint(k graph.Kind) string {
	if _, gp := k.(factor.GP); !gp {
		return ""
	}
	return "; gp(kernel, X, inducing = Z) with m inducing inputs Z needs only n×m numbers (FITC)"
}

// maxInducing bounds m: A and K_uu are m×m and a sweep costs O(n m²).
const maxInducing = 10_000

// gp's parameter positions (stdlib's table).
const (
	gpInducing = 2
	gpJitter   = 3
)

// isFITC reports whether the call a of a prior of kind k is a gp call
// naming inducing inputs.
func isFITC(a *args, k graph.Kind) bool {
	_, gp := k.(factor.GP)
	return gp && a.expr(gpInducing) != nil
}

// fitcPrior evaluates `inducing = Z` and `jitter = J` of a gp call a
// (kind k) with n latent elements and inputs of `cols` columns, bounding
// m and n·m.
func (c *compiler) fitcPrior(a *args, k graph.Kind, n, cols int) *graph.FITC {
	if e := a.expr(gpJitter); e != nil && !isFITC(a, k) {
		c.fail(e, "gp: `jitter` is the FITC jitter on K_uu and needs `inducing = Z`")
	}
	if !isFITC(a, k) {
		return nil
	}
	zv, _ := a.val(gpInducing)
	if zv.k != kNum || len(zv.shape) == 0 || len(zv.shape) > 2 {
		c.fail(a.at(gpInducing), "gp: `inducing` must be a matrix of inducing inputs (one row each), got %s", zv.describe())
	}
	m, zc := zv.shape[0], 1
	if len(zv.shape) == 2 {
		zc = zv.shape[1]
	}
	switch {
	case m < 1:
		c.fail(a.at(gpInducing), "gp: `inducing` has no rows; FITC needs at least one inducing input")
	case zc != cols:
		c.fail(a.at(gpInducing), "gp: `inducing` has %d columns but X has %d; inducing inputs live in the input space", zc, cols)
	case m > maxInducing:
		c.fail(a.at(gpInducing), "gp: %d inducing inputs; the limit is %d (FITC costs O(n m²) per sweep)", m, maxInducing)
	}
	limit := float64(maxCovBytes)
	if c.opt.maxCovBytes > 0 {
		limit = c.opt.maxCovBytes
	}
	if b := float64(n) * float64(m) * 8; b > limit {
		c.fail(a.at(gpInducing), "gp: FITC with %d latents and %d inducing inputs needs a %d×%d matrix (%.1f GB); the limit is 2 GB", n, m, n, m, b/(1<<30))
	}
	c.finite(a.at(gpInducing), "gp inducing", zv)
	f := &graph.FITC{Z: mat.NewDense(m, zc, append([]float64(nil), zv.num...))}
	if e := a.expr(gpJitter); e != nil {
		f.Jitter, f.JitterSet = a.num(gpJitter, 0), true
		if !(f.Jitter >= 0) || math.IsInf(f.Jitter, 1) {
			c.fail(e, "gp: `jitter` must be ≥ 0, got %s", fmtNum(f.Jitter))
		}
	}
	return f
}

// checkFITC refuses, at the infer line, a method that cannot run a model
// with a FITC block: only Gaussian-block EP (divergences kl, alpha,
// relaxed_kl; family full; schedules sequential, random, parallel) has the
// sparse representation; exact, mcmc, t(nu), fully factorised EP and
// mini-batch factors need the dense prior.
func (c *compiler) checkFITC(s *ast.InferStmt, spec *InferSpec) {
	for _, b := range c.m.Blocks() {
		if b.Prior.FITC == nil {
			continue
		}
		why := ""
		switch {
		case spec.Method != infer.MethodEP:
			why = "infer " + string(spec.Method) + " needs the dense prior covariance"
		case infer.FamilyOf(spec.Settings.Divergence) == infer.DivT:
			why = "divergence t(nu) has no FITC path"
		case spec.Family == infer.FamilyFactorized || len(b.Batches) > 0:
			why = "fully factorised EP (family = factorized, exp(...) factors) needs the dense prior"
		case spec.Settings.Schedule == infer.Residual:
			why = "schedule = residual is not supported; use sequential, random or parallel"
		}
		if why != "" {
			c.fail(s, "latent `%s` has a sparse gp prior (inducing = ...): %s; use infer ep with divergence kl, alpha or relaxed_kl", b.Name, why)
		}
	}
}

// checkFITCSites refuses sites that are not on single latent values of a
// FITC block (FITC EP updates one latent value per site).
func (c *compiler) checkFITCSites(b *graph.Block) {
	for _, s := range b.Sites {
		if s.Proj != nil {
			c.errAt(s.Pos, s.Pos, "factor %s depends on a projection of `%s`, which has a sparse gp prior (inducing = ...); FITC EP needs factors on single elements such as %s[i]", s.Label, b.Name, b.Name)
		}
	}
}

// dumpFITC writes a FITC prior's inducing inputs and jitter (compile's dump).
func dumpFITC(bw *bufio.Writer, f *graph.FITC) {
	if f == nil {
		return
	}
	r, c := f.Z.Dims()
	jitter := "gpml"
	if f.JitterSet {
		jitter = num(f.Jitter)
	}
	fmt.Fprintf(bw, "  fitc Z=%dx%d sum=%s jitter=%s\n", r, c, num(mat.Sum(f.Z)), jitter)
}
