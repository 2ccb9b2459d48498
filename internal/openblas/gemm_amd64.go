//go:build !noasm && !openblas

package openblas

import "golang.org/x/sys/cpu"

// haveKernel: the processor and the operating system support AVX2 and FMA.
var haveKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel6x8 adds alpha·Σ_l a[l·6+r]·b[l·8+j] to c[r·ldc+j] for r < 6, j < 8
// (a and b packed by packA and packB, k values of l).
//
//go:noescape
func kernel6x8(k int, a, b, c *float64, ldc int, alpha float64)
