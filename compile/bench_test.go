package compile

import "testing"

// BenchmarkCompileGPMLPima compiles examples/gpml/se_probit.fg on the Pima
// case (200 training points, 7 features): csv loading, 200 sites and the
// 200×200 SE Gram matrix.
func BenchmarkCompileGPMLPima(b *testing.B) {
	opt := Options{Set: map[string]string{"dir": `"../../data/reference/gpml/pima_ripley_se_probit"`, "log_ell": "1", "log_sf": "0.5"}}
	for i := 0; i < b.N; i++ {
		if _, err := CompileFile("../examples/gpml/se_probit.fg", opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileHinge compiles the 46 mini-batch hinge factors of
// examples/hinge_batches.fg.
func BenchmarkCompileHinge(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := CompileFile("../examples/hinge_batches.fg", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
