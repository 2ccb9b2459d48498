package tep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// TestUpperRankOne: a chain of rank-one updates and downdates of the
// in-place factor equals a fresh gonum Cholesky of the explicitly updated
// matrix (factor entries and log|A| to 1e-12 relative), solve equals
// gonum's SolveVecTo, and a downdate that leaves A indefinite reports false.
func TestUpperRankOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	k := 30
	a := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		a.SetSym(i, i, 2)
	}
	var ch mat.Cholesky
	ch.Factorize(a)
	var f upper
	f.set(&ch, k)
	x := make([]float64, k)
	for step := 0; step < 40; step++ {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		alpha := rng.Float64()
		if step%2 == 1 { // downdate by half of what keeps A positive definite
			var y mat.VecDense
			ch.Factorize(a)
			ch.SolveVecTo(&y, mat.NewVecDense(k, x))
			alpha = -0.5 / mat.Dot(mat.NewVecDense(k, x), &y)
		}
		a.SymRankOne(a, alpha, mat.NewVecDense(k, x))
		if !f.rankOne(alpha, append([]float64(nil), x...)) {
			t.Fatalf("step %d: update of a positive definite matrix failed", step)
		}
	}
	if !ch.Factorize(a) {
		t.Fatal("reference not PD")
	}
	var u mat.TriDense
	ch.UTo(&u)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			if d := math.Abs(f.u[i*k+j] - u.At(i, j)); !(d <= 1e-12*math.Max(1, math.Abs(u.At(i, j)))) {
				t.Fatalf("U[%d,%d] = %g, want %g", i, j, f.u[i*k+j], u.At(i, j))
			}
		}
	}
	check(t, "log det", f.logDet(), ch.LogDet(), 1e-12)
	got := make([]float64, k)
	f.solve(got, x)
	var want mat.VecDense
	ch.SolveVecTo(&want, mat.NewVecDense(k, x))
	for i := range got {
		check(t, "solve", got[i], want.AtVec(i), 1e-10)
	}
	var y mat.VecDense
	ch.SolveVecTo(&y, mat.NewVecDense(k, x))
	if f.rankOne(-1.01/mat.Dot(mat.NewVecDense(k, x), &y), append([]float64(nil), x...)) {
		t.Error("downdate to an indefinite matrix reported success")
	}
}

// TestSiteCavityExplicit: the O(k²) cavity statistics (Sherman–Morrison and
// the determinant lemma on θ\j = (1−cⱼ)θ − rank one) equal those of the
// explicit cavity matrix P\j factorised from scratch, for every site of a
// converged Student-t process and of a Bayes point machine mid-run (after
// two damped sweeps), to 1e-10.
func TestSiteCavityExplicit(t *testing.T) {
	bpm := mixtureBPM(30, 4, 5)
	for _, c := range []struct {
		p *Problem
		s infer.Settings
	}{
		{tpProblem(25, 6), infer.Settings{Damping: 0.5}},
		{bpm, infer.Settings{Damping: 0.7, MaxIter: 2}},
	} {
		r, err := Run(context.Background(), c.p, c.s, nil)
		if err != nil || r.Status == infer.Diverged {
			t.Fatal(err, r.Status)
		}
		st := r.st
		for j := range st.sites {
			cs, ok := st.siteCavity(j)
			cav, ok2 := st.cavityOf(j)
			if !ok || !ok2 {
				t.Fatalf("site %d: cavity not PD (%v %v)", j, ok, ok2)
			}
			var ch mat.Cholesky
			ch.Factorize(cav.P)
			var x, mu mat.VecDense
			ch.SolveVecTo(&x, mat.NewVecDense(st.k, st.g[j]))
			ch.SolveVecTo(&mu, mat.NewVecDense(st.k, cav.h))
			g := mat.NewVecDense(st.k, st.g[j])
			check(t, "w", cs.w, mat.Dot(g, &x), 1e-10*math.Abs(cs.w)+1e-14)
			check(t, "m", cs.m, mat.Dot(g, &mu), 1e-10)
			check(t, "quad", cs.quad, mat.Dot(mat.NewVecDense(st.k, cav.h), &mu), 1e-10)
			check(t, "log det", cs.logDet, ch.LogDet(), 1e-10)
		}
	}
}
