package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompactLatentErrors: a latent above 10⁷ elements is admitted only as
// the weights of a libsvm plate with a shared normal prior; every other
// form is an error at its position, and the streamed form compiles to a
// block whose prior is two numbers, with no graph variables and no prior
// factor.
func TestCompactLatentErrors(t *testing.T) {
	const d = 10_000_001
	dir := t.TempDir()
	svm := filepath.Join(dir, "wide.svm")
	if err := os.WriteFile(svm, []byte(fmt.Sprintf("1 1:0.5 %d:1\n-1 2:1.5\n", d)), 0o644); err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("data X = libsvm(%q)\ndata y = libsvm_labels(%q)\n", svm, svm)
	plate := "for i in 0..len(y) {\n  y[i] ~ probit(dot(X[i], w))\n}\ninfer ep { passes = 1 }\n"
	cases := []struct{ src, want string }{
		{"latent w: real[cols(X)]\n" + plate, "test.fg:3:11: latent `w` has 1.0000001e+07 elements; the limit is 1e+07 (above it, only the weights of a libsvm plate"},
		{"latent w: real[cols(X)] ~ student_t(3, 0, 1)\n" + plate, "test.fg:3:11: latent `w` has 1.0000001e+07 elements; the limit is 1e+07"},
		{"latent w: real[cols(X), 1] ~ normal(0, 1)\n" + plate, "test.fg:3:11: latent `w` has 1.0000001e+07 elements"},
		{"latent w: real[cols(X)] ~ normal(0, 1)\ninfer ep\n", "test.fg:3:1: latent `w` has 10000001 elements; the limit is 1e+07, except for the weights of a libsvm plate"},
		{"latent w: real[cols(X)] ~ normal(0, 0)\n" + plate, "test.fg:3:37: normal: `var` must be > 0, got 0"},
		{"data v = [1, 2]\nlatent w: real[cols(X)] ~ normal(0, v)\n" + plate, "test.fg:4:37: normal: the prior of a latent of more than 1e+07 elements is shared by all of them: `var` must be a number"},
		{"latent w: real[cols(X)] ~ normal(0, 1)\n" + plate + "latent z: real ~ normal(w[3], 1)\n", "test.fg:8:25: latent `w` has 10000001 elements, more than the 1e+07 of a latent used element by element"},
		{"latent w: real[cols(X)] ~ normal(0, 1)\n" + plate + "predict p = predictive(w, [[1]])\n", "test.fg:8:27: predictive(w, Xtest): `w` is the weights of a libsvm plate; Xtest is libsvm(path)"},
	}
	for _, tc := range cases {
		got := compileErr(t, head+tc.src, Options{})
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s\ngot  %s\nwant %s", tc.src, got, tc.want)
		}
	}
	m, err := CompileSource("test.fg", []byte(head+"latent w: real[cols(X)] ~ normal(0.5, sd = 2)\n"+plate+"predict p = predictive(w, X)\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := m.Blocks()[0]
	if !b.Prior.Shared || len(b.Prior.Mean) != 1 || b.Prior.Mean[0] != 0.5 || b.Prior.Var[0] != 4 || b.N != d || len(b.Streams) != 1 {
		t.Errorf("block %s: N %d, prior shared %v mean %v var %v, %d streams", b.Name, b.N, b.Prior.Shared, b.Prior.Mean, b.Prior.Var, len(b.Streams))
	}
	if len(m.Graph.Vars) != 0 || m.Graph.NumFactors() != 0 || len(m.Predicts) != 1 {
		t.Errorf("%d graph variables, %d factors, %d predicts; want 0, 0, 1", len(m.Graph.Vars), m.Graph.NumFactors(), len(m.Predicts))
	}
}
