package compile

import (
	"testing"

	"github.com/fg-infer/fg/factor"
)

// TestModelKindsPotentials: the discrete factors whose rules an infer line
// checks are the potentials (ising, table, a libDAI file's tables), read
// from the graph's typed kinds; a categorical prior's table is not a
// potential and is not among them.
func TestModelKindsPotentials(t *testing.T) {
	src := `model m
latent z: cat(3) ~ categorical([0.2, 0.3, 0.5])
latent x: spin[2]
factor ising(x[0], x[1], 0.5)
factor table(z, x[0], [1, 2, 3, 4, 5, 6])
factor ising(x[1], x[0], 0.25)
infer bp
`
	m, err := CompileSource("kinds.fg", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newCompiler(Options{fset: m.Fset})
	c.m = m
	var got []factor.Key
	for _, u := range c.modelKinds() {
		got = append(got, factor.KeyOf(u.kind))
	}
	want := []factor.Key{factor.KeyOf(factor.Ising{}), factor.KeyOf(factor.Table{})}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("model kinds %v, want %v", got, want)
	}
}
