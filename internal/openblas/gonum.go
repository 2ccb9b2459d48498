//go:build !openblas

package openblas

// Backend names the dense linear algebra of this build.
const Backend = "gonum"
