//go:build openblas

package openblas

/*
#cgo LDFLAGS: -llapacke -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	blasnetlib "gonum.org/v1/netlib/blas/netlib"
	lapacknetlib "gonum.org/v1/netlib/lapack/netlib"
)

// Backend names the dense linear algebra of this build.
const Backend = "openblas"

func init() {
	C.openblas_set_num_threads(C.int(runtime.GOMAXPROCS(0)))
	blas64.Use(blasnetlib.Implementation{})
	lapack64.Use(lapacknetlib.Implementation{})
}
