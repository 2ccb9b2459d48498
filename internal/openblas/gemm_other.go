//go:build !amd64 || noasm || openblas

package openblas

// haveKernel: no micro-kernel for this architecture or build (cgo, in the
// OpenBLAS build, excludes Go assembly); Gemm is blas64.Gemm.
const haveKernel = false

func kernel6x8(k int, a, b, c *float64, ldc int, alpha float64) {
	panic("openblas: no gemm micro-kernel on this architecture")
}
