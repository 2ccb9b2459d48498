// Package openblas selects the dense linear algebra behind every gonum call
// of fg (mat.Cholesky, mat.Dense.Mul, blas64.Trsm, blas64.Syr, …).
//
// The default build is pure Go: gonum's own BLAS and LAPACK. Built with the
// tag openblas (go build -tags openblas ./cmd/fg; cgo and the Debian packages
// libopenblas-dev and liblapacke-dev), the package's init installs
// gonum.org/v1/netlib's cgo wrappers of OpenBLAS and LAPACKE as the global
// implementations (blas64.Use, lapack64.Use), so that the same code runs on
// OpenBLAS without a change. OpenBLAS's thread pool is sized to
// runtime.GOMAXPROCS at start-up.
//
// Package infer imports this package, so every engine, the CLI, the REPL and
// the Go API pick the backend of the build.
package openblas
