package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/stdlib/kernel"
)

// TestDataExpressions evaluates data expressions and compares them with
// values worked out by hand.
func TestDataExpressions(t *testing.T) {
	m := mustCompile(t, `
data A = [[1, 2], [3, 4], [5, 6]]
data v = [1, -1]
data Av = A @ v
data AtA = [[1, 3, 5], [2, 4, 6]] @ A
data col = A[:, 1]
data sl = A[1:3, 0]
data r = rows(A, [2, 0])
data e = rows([10, 20, 30], [1])
data s = sum(A) + dot(v, v)
data mn = min([3, -2, 7])
data mx = max([1, 5], [4, 2])
data p = 2 ^ 3 ^ 2
data q = -2 ^ 2
data n = len(A) + len(v)
data ok = (1 < 2) and not (3 == 4) or false
data st = "a" + "b"
data ex = exp(log(2)) + sqrt(abs(-9))
`, Options{})
	want := map[string][]float64{
		"Av": {-1, -1, -1}, "AtA": {35, 44, 44, 56}, "col": {2, 4, 6}, "sl": {3, 5},
		"r": {5, 6, 1, 2}, "e": {20}, "s": {23}, "mn": {-2}, "mx": {4, 5}, "p": {512}, "q": {-4},
		"n": {5}, "ok": {1}, "ex": {5},
	}
	for k, w := range want {
		got := m.Data[k].Num
		if len(got) != len(w) {
			t.Errorf("%s = %v, want %v", k, got, w)
			continue
		}
		for i := range w {
			if !(math.Abs(got[i]-w[i]) <= 1e-12) {
				t.Errorf("%s = %v, want %v", k, got, w)
			}
		}
	}
	if m.Data["st"].Str != "ab" || len(m.Data["r"].Shape) != 2 || m.Data["r"].Shape[0] != 2 {
		t.Errorf("st %q r shape %v", m.Data["st"].Str, m.Data["r"].Shape)
	}
}

// TestKernels checks every kernel and the kernel algebra against the
// formulas of docs/language.md at two inputs.
func TestKernels(t *testing.T) {
	m := mustCompile(t, `
data X = [[0, 0], [1, 2]]
latent ka: real[2] ~ gp(ard([1, 2], 3), X)
latent kb: real[2] ~ gp(matern32(2, 1.5), X)
latent kc: real[2] ~ gp(2 * linear(0.5) + bias(0.3), X)
latent kd: real[2] ~ gp(se(1, 2) * white(0.5), X)
`, Options{})
	r := math.Sqrt(5)
	cases := []struct {
		blk  int
		i, j int
		want float64
	}{
		{0, 0, 1, 3 * math.Exp(-(1.0/1+4.0/4)/2)},
		{1, 0, 1, 1.5 * (1 + math.Sqrt(3)*r/2) * math.Exp(-math.Sqrt(3)*r/2)},
		{2, 1, 1, 2*(1+4)/0.25 + 0.3},
		{2, 0, 1, 0.3},
		{3, 0, 0, 2 * 0.5},
		{3, 0, 1, 0},
	}
	for _, tc := range cases {
		if got := m.Blocks()[tc.blk].Prior.Cov.At(tc.i, tc.j); !(math.Abs(got-tc.want) <= 1e-14) {
			t.Errorf("block %d K[%d,%d] = %.17g, want %.17g", tc.blk, tc.i, tc.j, got, tc.want)
		}
	}
	if k := m.Blocks()[2].Prior.Kernel; k.Kind != kernel.KindSum || k.Args[0].Kind != kernel.KindProd || k.Args[0].Args[0].Kind != kernel.KindBias {
		t.Errorf("kernel tree %+v", k)
	}
	if msg := compileErr(t, "data X = [[0, 0], [1, 2]]\nlatent a: real[2] ~ gp(ard([1, 2, 3], 1), X)\n", Options{}); !strings.Contains(msg, "ard has 3 lengthscales but the inputs have 2 columns") {
		t.Errorf("ard: %s", msg)
	}
}
