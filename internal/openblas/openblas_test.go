//go:build openblas

package openblas_test

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/benchdata"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
	blasnetlib "gonum.org/v1/netlib/blas/netlib"
	lapacknetlib "gonum.org/v1/netlib/lapack/netlib"
)

// withGonum runs f on gonum's pure-Go BLAS and LAPACK, then reinstalls
// OpenBLAS (the build's backend).
func withGonum(f func()) {
	blas64.Use(gonum.Implementation{})
	lapack64.Use(lapackgonum.Implementation{})
	defer func() {
		blas64.Use(blasnetlib.Implementation{})
		lapack64.Use(lapacknetlib.Implementation{})
	}()
	f()
}

func maxDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestBackendSelected: the build tag installed OpenBLAS behind gonum.
func TestBackendSelected(t *testing.T) {
	if _, ok := blas64.Implementation().(blasnetlib.Implementation); !ok {
		t.Fatalf("blas64 implementation is %T, want netlib", blas64.Implementation())
	}
}

// TestEPAgreesWithGonum: a whole EP run (sequential and parallel) on
// OpenBLAS gives gonum's pure-Go numbers to 1e-10.
func TestEPAgreesWithGonum(t *testing.T) {
	p := benchdata.ProbitGP(300, 5)
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
		s := ep.Settings{Settings: infer.Settings{Schedule: sched, Tol: 1e-9}}
		ob, err := ep.Run(context.Background(), p, s)
		if err != nil || ob.Status != infer.Converged {
			t.Fatalf("%v on OpenBLAS: %v %v", sched, err, ob.Status)
		}
		var pg *ep.Result
		withGonum(func() { pg, err = ep.Run(context.Background(), p, s) })
		if err != nil || pg.Status != infer.Converged {
			t.Fatalf("%v on gonum: %v %v", sched, err, pg.Status)
		}
		if ob.Iterations != pg.Iterations {
			t.Errorf("%v: %d sweeps on OpenBLAS, %d on gonum", sched, ob.Iterations, pg.Iterations)
		}
		if d := maxDiff(ob.Mean, pg.Mean); d > 1e-10 {
			t.Errorf("%v: means differ by %g", sched, d)
		}
		if d := maxDiff(ob.Var, pg.Var); d > 1e-10 {
			t.Errorf("%v: variances differ by %g", sched, d)
		}
		if d := math.Abs(ob.LogZ - pg.LogZ); !(d <= 1e-10*math.Abs(pg.LogZ)) {
			t.Errorf("%v: log Z %v vs %v", sched, ob.LogZ, pg.LogZ)
		}
	}
}

// TestKernelsAgreeWithGonum: Cholesky, solve and product of a 500×500
// kernel matrix agree between the backends to 1e-10 (relative).
func TestKernelsAgreeWithGonum(t *testing.T) {
	K := benchdata.ProbitGP(500, 5).Cov
	for i := 0; i < 500; i++ {
		K.SetSym(i, i, K.At(i, i)+1)
	}
	run := func() (float64, []float64, []float64) {
		var ch mat.Cholesky
		if !ch.Factorize(K) {
			t.Fatal("not positive definite")
		}
		b := mat.NewVecDense(500, nil)
		for i := 0; i < 500; i++ {
			b.SetVec(i, math.Sin(float64(i)))
		}
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, b); err != nil {
			t.Fatal(err)
		}
		var P mat.Dense
		P.Mul(K, K)
		return ch.LogDet(), x.RawVector().Data, P.RawMatrix().Data
	}
	ld1, x1, p1 := run()
	var ld2 float64
	var x2, p2 []float64
	withGonum(func() { ld2, x2, p2 = run() })
	if d := math.Abs(ld1 - ld2); !(d <= 1e-10*math.Abs(ld2)) {
		t.Errorf("log det %v vs %v", ld1, ld2)
	}
	if d := maxDiff(x1, x2); d > 1e-10 {
		t.Errorf("solutions differ by %g", d)
	}
	if d := maxDiff(p1, p2); d > 1e-10*mat.Norm(K, math.Inf(1))*mat.Norm(K, math.Inf(1)) {
		t.Errorf("products differ by %g", d)
	}
}
