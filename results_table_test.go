package fg_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibDAIChainThroughAPI reads a libDAI chain of 300 binary variables
// (a field on each, a coupling between neighbours: a tree, on which BP and
// the junction tree are exact) through the Go API and checks every
// latent's P(x = 1), looked up by name — the results of a libDAI file are
// a table over its latents, indexed by name on first lookup — against
// forward–backward computed here: exact to 1e-12, bp to its belief
// tolerance 1e-9 (it stops when a pass changes no belief by more); the names are the file's
// labels (x<label>), listed in order, and an unknown one is an error.
func TestLibDAIChainThroughAPI(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(3, 5))
	field := make([][2]float64, n)
	pair := make([][4]float64, n-1) // pair[i][a + 2b] couples x_i = a, x_{i+1} = b
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", 2*n-1)
	for i := range field {
		field[i] = [2]float64{0.2 + rng.Float64(), 0.2 + rng.Float64()}
		fmt.Fprintf(&b, "\n1\n%d\n2\n2\n0 %.17g\n1 %.17g\n", i, field[i][0], field[i][1])
	}
	for i := range pair {
		for k := range pair[i] {
			pair[i][k] = 0.2 + rng.Float64()
		}
		fmt.Fprintf(&b, "\n2\n%d %d\n2 2\n4\n", i, i+1)
		for k, v := range pair[i] {
			fmt.Fprintf(&b, "%d %.17g\n", k, v)
		}
	}
	path := filepath.Join(t.TempDir(), "chain.fg")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Forward–backward: alpha[i] sums over x_0 … x_{i−1}, beta[i] over
	// x_{i+1} …, both renormalised.
	alpha, beta := make([][2]float64, n), make([][2]float64, n)
	alpha[0], beta[n-1] = [2]float64{1, 1}, [2]float64{1, 1}
	for i := 1; i < n; i++ {
		for x := range 2 {
			for y := range 2 {
				alpha[i][x] += alpha[i-1][y] * field[i-1][y] * pair[i-1][y+2*x]
			}
		}
		s := alpha[i][0] + alpha[i][1]
		alpha[i][0], alpha[i][1] = alpha[i][0]/s, alpha[i][1]/s
	}
	for i := n - 2; i >= 0; i-- {
		for x := range 2 {
			for y := range 2 {
				beta[i][x] += beta[i+1][y] * field[i+1][y] * pair[i][x+2*y]
			}
		}
		s := beta[i][0] + beta[i][1]
		beta[i][0], beta[i][1] = beta[i][0]/s, beta[i][1]/s
	}
	rs := runFile(t, path)
	for label, tol := range map[string]float64{"bp": 1e-9, "exact": 1e-12} {
		r := rs.Get(label)
		if names := r.Variables(); len(names) != n || names[0] != "x0" || names[n-1] != fmt.Sprint("x", n-1) {
			t.Fatalf("%s: %d latents %v … ", label, len(names), names[:min(3, len(names))])
		}
		for i := n - 1; i >= 0; i-- { // backwards: the index, not the order, finds them
			u := [2]float64{alpha[i][0] * field[i][0] * beta[i][0], alpha[i][1] * field[i][1] * beta[i][1]}
			want := u[1] / (u[0] + u[1])
			got, err := r.Prob(fmt.Sprint("x", i), 0, "1")
			if err != nil || !(math.Abs(got-want) <= tol) {
				t.Fatalf("%s: P(x%d = 1) = %v (%v), forward–backward %v", label, i, got, err, want)
			}
		}
		if _, err := r.Prob(fmt.Sprint("x", n), 0, "1"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("… (%d in all)", n)) {
			t.Errorf("%s: unknown latent: %v", label, err)
		}
	}
}
