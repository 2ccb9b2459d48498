package compile

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/graph"
)

// vectorPlateCases are plates that compile as one vector statement, or
// fall back to unrolling, with their errors: each must compile exactly as
// when every plate is unrolled.
var vectorPlateCases = []string{
	// A random walk seen at every step, and through probit labels.
	`param T = 6
data y = [0.1, -0.3, 0.2, 0.5, 1, 0.7]
data s: spin[6] = [1, -1, 1, 1, -1, 1]
latent x: real[T]
x[0] ~ normal(0, 10)
for t in 1..T { x[t] ~ normal(0.9 * x[t-1] + 0.1, 0.5) }
for t in 0..T { y[t] ~ normal(x[t], 2) }
for t in 0..T { s[t] ~ probit(x[t] - 0.5) }
infer ep`,
	// Per-element variances, offsets on both sides, a scalar latent, a
	// parenthesised mean, a named argument.
	`data q = [0.1, 0.2, 0.3, 0.4, 0.5]
data y = [1, 2, 3, 4]
latent b: real ~ normal(0, 1)
latent x: real[5]
x[0] ~ normal(0, 1)
for t in 0..4 { x[t + 1] ~ normal((x[t] - b) / 2, q[t + 1]) }
for t in 1..5 { y[t - 1] ~ normal(mean = x[t] + b, var = 0.5) }
infer ep`,
	// Errors inside a vector plate, named per element.
	`data s = [1, -1, 2, 1]
latent x: real[4]
x[0] ~ normal(0, 1)
for t in 1..4 { x[t] ~ normal(x[t-1], 1) }
for t in 0..4 { s[t] ~ probit(x[t]) }
infer ep`,
	`data q = [1, 1, -1, 1]
latent x: real[4]
x[0] ~ normal(0, 1)
for t in 1..4 { x[t] ~ normal(x[t-1], q[t]) }
infer ep`,
	`latent x: real[4]
x[0] ~ normal(0, 1)
for t in 1..4 { x[t] ~ normal(x[t], 1) }
infer ep`,
	// Out of range: unrolled, the error at the iteration.
	`latent x: real[4]
x[0] ~ normal(0, 1)
for t in 1..5 { x[t] ~ normal(x[t-1], 1) }
infer ep`,
	// A projection that is not the first argument; a per-element
	// likelihood parameter (unrolled: its errors name no element).
	`data y = [1, 2, 3, 4]
data nu = [3, -1, 4, 5]
latent x: real[4] ~ normal(0, 1)
for t in 0..4 { y[t] ~ student_t(4, x[t], 0.5) }
for t in 0..4 { y[t] ~ student_t(nu[t], x[t], 0.5) }
infer ep`,
	// mvnormal per step is not a joint over the plate.
	`latent x: real[4]
x[0] ~ normal(0, 1)
for t in 1..4 { x[t] ~ mvnormal(x[t-1], 1) }
infer ep`,
	// Not vectorised: t outside an index, a vector name, a call.
	`data y = [1, 2, 3]
latent x: real[3] ~ normal(0, 1)
for t in 0..3 { y[t] ~ normal(x[t], 1 + t) }
for t in 0..3 { y[t] ~ normal(x[t], y) }
for t in 0..3 { y[t] ~ normal(x[t], exp(1)) }
infer ep`,
}

// TestVectorPlatesAsUnrolled compiles the cases above, the examples and
// the golden and error files with vector plates and with every plate
// unrolled: the model dumps (factors with their labels and parameters,
// the factor graph, blocks) and the errors must be identical.
func TestVectorPlatesAsUnrolled(t *testing.T) {
	for _, s := range testSources(t) {
		vec, unr := compileDump(s.name, s.text, Options{}), compileDump(s.name, s.text, Options{unrolled: true})
		if vec != unr {
			t.Errorf("%s: vector plates compile differently:\n--- vector\n%s\n--- unrolled\n%s", s.name, clip(vec), clip(unr))
		}
	}
}

// testSource is a model source and its file name.
type testSource struct{ name, text string }

// testSources are vectorPlateCases, every example and every golden and
// error file.
func testSources(t *testing.T) []testSource {
	type src = testSource
	var srcs []src
	for i, s := range vectorPlateCases {
		srcs = append(srcs, src{filepath.Join(t.TempDir(), "case"+string(rune('a'+i))+".fg"), s})
	}
	for _, glob := range []string{"../examples/*.fg", "../examples/*/*.fg", "testdata/golden/*.fg", "testdata/errors/*.fg"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, src{f, string(b)})
		}
	}
	if len(srcs) < 30 {
		t.Fatalf("only %d sources", len(srcs))
	}
	return srcs
}

// compileDump is the model's Dump, or its errors.
func compileDump(name, text string, opt Options) string {
	m, err := CompileSource(name, []byte(text), opt)
	if err != nil {
		return "error: " + err.Error()
	}
	var b bytes.Buffer
	if err := Dump(&b, m); err != nil {
		return "dump: " + err.Error()
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return strings.TrimSpace(s)
}

// TestPlateRangeErrorAlone: a plate whose range is refused (here not an
// integer; at 10⁷ steps, over the plate limit) reports that error alone,
// not also "no prior or conditional" for the latent its body would have
// covered.
func TestPlateRangeErrorAlone(t *testing.T) {
	got := compileErr(t, `param T = 4.5
latent x: real[5]
x[0] ~ normal(0, 1)
for t in 1..T { x[t] ~ normal(x[t-1], 1) }
infer ep`, Options{})
	if !strings.Contains(got, "range end must be an integer, got 4.5") || strings.Contains(got, "no prior") {
		t.Errorf("got %q", got)
	}
}

// TestPerElementVarianceNoMaps: a chain's conditionals with per-element
// variances carry each variance in the factor graph's variance column
// (listed by Model.Factors as the factor's scalar parameter "var", the
// data's value read back exactly), not a Params map and a variable list
// per factor: a compile allocates one object per step (the coefficient
// a[t] of the mean, lin.scale), not three or more.
func TestPerElementVarianceNoMaps(t *testing.T) {
	src := func(T int) string {
		return fmt.Sprintf(`param T = %d
data a = random_normal(2, T, 1, 0.01)
data q = random_normal(3, T, 1, 0.05)
latent x: real[T]
x[0] ~ normal(0, 10)
for t in 1..T { x[t] ~ normal(a[t] * x[t-1], q[t]) }
infer ep`, T)
	}
	m, err := CompileSource("pv.fg", []byte(src(50)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := m.Data["q"].Num
	seen := 0
	for f, ps := range m.Factors().(graph.ParamList).LabelledFactorParams() {
		if !strings.HasPrefix(f.Label, "normal(x[") || f.Label == "normal(x[0])" {
			continue
		}
		var k int
		fmt.Sscanf(f.Label, "normal(x[%d])", &k)
		if f.ScalarName != "var" || math.Float64bits(f.Scalar) != math.Float64bits(q[k]) || ps != nil {
			t.Errorf("%s: %s %v, params %v; want var %v and no others", f.Label, f.ScalarName, f.Scalar, ps, q[k])
		}
		seen++
	}
	if seen != 49 {
		t.Fatalf("%d conditionals with per-element variances, want 49", seen)
	}
	allocs := func(T int) float64 {
		s := []byte(src(T))
		return testing.AllocsPerRun(2, func() {
			if _, err := CompileSource("pv.fg", s, Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a1, a2 := allocs(2000), allocs(4000); a2-a1 > 1.5*2000 {
		t.Errorf("compile allocates %v times at T = 2000, %v at T = 4000: the conditionals allocate per step", a1, a2)
	}
}
