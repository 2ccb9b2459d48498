package netjoint

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRootBand: random rows (n = 40, half-width 3, two to three rows per
// first column, each over a random span of at most 4 columns, some
// coefficients zero) folded into a RootBand give the mean, the band of the
// covariance and log det of the dense normal equations AᵀA x = Aᵀb
// (gonum's Cholesky and inverse of the dense AᵀA) to 1e-10; rows out of
// order panic.
func TestRootBand(t *testing.T) {
	const n, k = 40, 3
	rng := rand.New(rand.NewPCG(5, 6))
	rb := NewRootBand(n, k)
	ata, atb := mat.NewSymDense(n, nil), make([]float64, n)
	for lo := 0; lo < n; lo++ {
		for r := 0; r < 2+rng.IntN(2); r++ {
			a := make([]float64, 1+rng.IntN(min(k+1, n-lo)))
			for j := range a {
				if j == 0 || rng.Float64() < 0.8 {
					a[j] = rng.NormFloat64()
				}
			}
			b := rng.NormFloat64()
			rb.AddRow(lo, a, b)
			for i, x := range a {
				atb[lo+i] += x * b
				for j := i; j < len(a); j++ {
					ata.SetSym(lo+i, lo+j, ata.At(lo+i, lo+j)+x*a[j])
				}
			}
		}
	}
	mean, cov, err := rb.SolveDone(nil)
	if err != nil {
		t.Fatal(err)
	}
	var ch mat.Cholesky
	if !ch.Factorize(ata) {
		t.Fatal("AᵀA not positive definite")
	}
	var m mat.VecDense
	if err := ch.SolveVecTo(&m, mat.NewVecDense(n, atb)); err != nil {
		t.Fatal(err)
	}
	var sig mat.SymDense
	if err := ch.InverseTo(&sig); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		near(t, "mean", mean[i], m.AtVec(i), 1e-10)
		for j := i; j <= min(i+k, n-1); j++ {
			near(t, "cov", cov[i*(k+1)+j-i], sig.At(i, j), 1e-10)
		}
	}
	near(t, "log det", rb.LogDet(), ch.LogDet(), 1e-10)
	defer func() {
		if recover() == nil {
			t.Error("a row before the last row's first column did not panic")
		}
	}()
	rb.AddRow(3, []float64{1}, 0)
}

// TestRootBandSingular: rows that leave a direction free fail as not
// positive definite rather than give a variance of 10¹⁶: x_1 − x_0 read
// twice (an exact zero left in R), and 0.1 x_0 + 0.7 x_1 read with its
// multiple by 3 (a zero up to rounding).
func TestRootBandSingular(t *testing.T) {
	for _, rows := range [][2][]float64{{{1, -1}, {1, -1}}, {{0.1, 0.7}, {0.3, 2.1}}} {
		rb := NewRootBand(3, 1)
		rb.AddRow(0, rows[0], 0.3)
		rb.AddRow(0, rows[1], 0.1)
		rb.AddRow(1, []float64{0, 1}, 0)
		rb.AddRow(2, []float64{2}, 1)
		if _, _, err := rb.SolveDone(nil); err == nil {
			t.Errorf("rows %v: a free direction solved", rows)
		}
	}
	if _, _, err := NewRootBand(2, 1).SolveDone(nil); err == nil {
		t.Error("no rows solved")
	}
}

// TestQuadRows: the rows of −½ xᵀPx + bᵀx for P = Σ a aᵀ of rank 2 over
// 4 variables and b = Σ a c sum back to P and b to 1e-13 relative; an
// indefinite P and a linear tilt off P's range have no rows.
func TestQuadRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 4
	p, b := make([]float64, n*n), make([]float64, n)
	for range 2 {
		a := make([]float64, n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		c := rng.NormFloat64()
		for i := range a {
			b[i] += a[i] * c
			for j := range a {
				p[i*n+j] += a[i] * a[j]
			}
		}
	}
	rows, rhs, ok := QuadRows(p, b, n, 1)
	if !ok || len(rhs) != 2 {
		t.Fatalf("ok %v, %d rows, want 2", ok, len(rhs))
	}
	gp, gb := make([]float64, n*n), make([]float64, n)
	for r, c := range rhs {
		a := rows[r*n : r*n+n]
		for i := range a {
			gb[i] += a[i] * c
			for j := range a {
				gp[i*n+j] += a[i] * a[j]
			}
		}
	}
	for i := range p {
		if !(math.Abs(gp[i]-p[i]) <= 1e-13*(1+math.Abs(p[i]))) {
			t.Errorf("P[%d]: rows %g, want %g", i, gp[i], p[i])
		}
	}
	for i := range b {
		if !(math.Abs(gb[i]-b[i]) <= 1e-13*(1+math.Abs(b[i]))) {
			t.Errorf("b[%d]: rows %g, want %g", i, gb[i], b[i])
		}
	}
	if _, _, ok := QuadRows([]float64{1, 0, 0, -1}, []float64{0, 0}, 2, 1); ok {
		t.Error("indefinite P has rows")
	}
	if _, _, ok := QuadRows([]float64{1, 0, 0, 0}, []float64{0, 1}, 2, 1); ok {
		t.Error("a tilt off P's range has rows")
	}
}

// TestFoldRows: rows given in random order of their first columns (some
// left out) and folded by FoldRows give R and z bit for bit as the same
// rows added by AddRow in order of first column, ties in index order
// (the stable counting sort); a closed done cancels.
func TestFoldRows(t *testing.T) {
	const n, k, m = 30, 2, 90
	rng := rand.New(rand.NewPCG(7, 8))
	first := make([]int32, m)
	rows := make([][]float64, m)
	bs := make([]float64, m)
	for i := range first {
		first[i] = int32(rng.IntN(n))
		if rng.Float64() < 0.1 {
			first[i] = -1
		}
		rows[i] = make([]float64, 1+rng.IntN(min(k+1, n-max(int(first[i]), 0))))
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64()
		}
		bs[i] = rng.NormFloat64()
	}
	got := NewRootBand(n, k)
	if err := got.FoldRows(first, nil, func(i int, a []float64) (int, float64) {
		return copy(a, rows[i]), bs[i]
	}); err != nil {
		t.Fatal(err)
	}
	want := NewRootBand(n, k)
	for c := range int32(n) {
		for i := range first {
			if first[i] == c {
				want.AddRow(int(c), rows[i], bs[i])
			}
		}
	}
	for i := range want.r {
		if got.r[i] != want.r[i] {
			t.Fatalf("R[%d] = %v, want %v", i, got.r[i], want.r[i])
		}
	}
	for i := range want.z {
		if got.z[i] != want.z[i] {
			t.Fatalf("z[%d] = %v, want %v", i, got.z[i], want.z[i])
		}
	}
	done := make(chan struct{})
	close(done)
	if err := NewRootBand(n, k).FoldRows(first, done, func(i int, a []float64) (int, float64) { return copy(a, rows[i]), bs[i] }); err != ErrCanceled {
		t.Fatalf("closed done: err = %v, want ErrCanceled", err)
	}
}
